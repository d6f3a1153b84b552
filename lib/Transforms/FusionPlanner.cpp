//===- FusionPlanner.cpp - choose which ops to fuse, and say why ----------===//
//
// Three kernel templates, tried in this order so that each op lands in the
// kernel a performance engineer would put it in:
//  1. gemm_epilogue: matmul + bias + (tanh-GELU | ReLU), as cuBLASLt runs it;
//  2. row_reduction: a softmax / reduce (along any axis) or a layer_norm /
//     rms_norm with its elementwise prologue and epilogue;
//  3. loop: chains of same-shape elementwise ops.
// A producer joins a kernel only when that is legal for the template and the
// cost model predicts the merged kernel to beat the two kernels apart. A
// producer other kernels also read may instead be recomputed in the kernel
// (a copy of the op) when reading its operands beats reading its result: a
// widening cast or a broadcast, read at its smaller size.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Transforms/FusionPlanner.h"
#include "tfuse/Analysis/KernelCost.h"
#include "tfuse/Analysis/TrafficAnalysis.h"
#include "tfuse/Support/CheckedInt.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tfuse;

std::optional<GroupCost> mlir::tfuse::addGroupCosts(const GroupCost &a,
                                                    const GroupCost &b) {
  std::optional<int64_t> bytes = (CheckedInt(a.bytes) + b.bytes).get();
  std::optional<int64_t> flops = (CheckedInt(a.flops) + b.flops).get();
  if (!bytes || !flops)
    return std::nullopt;
  return GroupCost{*bytes, *flops, a.timeUs + b.timeUs};
}

std::string mlir::tfuse::describeOp(Operation *op) {
  return (op->getName().getStringRef() + " at " + formatLocation(op->getLoc()))
      .str();
}

namespace {

/// Legality rules; their names appear in decisions and tests.
namespace rule {
constexpr const char *kNotElementwise = "not-elementwise";
constexpr const char *kShape = "shape-mismatch";
constexpr const char *kTaken = "already-fused";
constexpr const char *kOrder = "order";
constexpr const char *kGemmLayout = "gemm-layout";
constexpr const char *kBias = "bias-not-vector";
constexpr const char *kGeluErf = "gelu-erf-epilogue";
constexpr const char *kNoEmitter = "no-emitter";
} // namespace rule

bool isElementwise(Operation *op) {
  auto cost = dyn_cast<CostOpInterface>(op);
  return cost && !isa<FusionOp>(op) &&
         cost.getOpClass() == OpClass::Elementwise;
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

std::string kindName(FusionKind kind) {
  return stringifyFusionKind(kind).str();
}

class Planner {
public:
  Planner(func::FuncOp func, const GpuTarget &target)
      : func(func), target(target) {
    for (auto [index, op] : llvm::enumerate(func.getBody().front()))
      position[&op] = index;
  }

  FailureOr<FusionPlan> run() {
    for (Operation &op : func.getBody().front())
      if (isa<MatmulOp>(op) && succeeded(status))
        planGemmEpilogue(cast<MatmulOp>(op));
    for (Operation &op : func.getBody().front())
      if (isRowOp(&op) && !groupOf.count(&op) && succeeded(status))
        planRowReduction(&op);
    for (Operation &op :
         llvm::reverse(func.getBody().front().without_terminator()))
      if (isElementwise(&op) && !groupOf.count(&op) && succeeded(status))
        planLoop(&op);
    if (failed(status))
      return failure();

    FusionPlan plan;
    for (Group &group : groups) {
      if (group.ops.size() < 2)
        continue;
      FusionGroup result;
      result.kind = group.kind;
      result.ops = sorted(group.ops);
      std::optional<GroupCost> unfused = apartCost(result.ops);
      if (!unfused)
        return failure();
      result.unfused = *unfused;
      result.fused = kernelCost(result.ops, group.kind);
      plan.groups.push_back(std::move(result));
    }
    plan.decisions = std::move(decisions);
    return plan;
  }

private:
  struct Group {
    FusionKind kind;
    Operation *anchor;
    llvm::SetVector<Operation *> ops;
    /// The shape every member computes (its iteration space).
    SmallVector<int64_t> shape;
  };

  SmallVector<Operation *> sorted(const llvm::SetVector<Operation *> &ops) {
    SmallVector<Operation *> result(ops.begin(), ops.end());
    llvm::sort(result, [&](Operation *a, Operation *b) {
      return position[a] < position[b];
    });
    return result;
  }

  /// Time of `ops` run as one kernel of `kind`, priced by the kernel cost
  /// the report and the plan use.
  GroupCost kernelCost(ArrayRef<Operation *> ops, FusionKind kind) {
    return priced(describeFusedKernel(ops, kind));
  }

  GroupCost priced(const KernelCost &kernel) {
    GroupCost cost;
    cost.bytes = kernel.bytes();
    cost.flops = kernel.flops;
    cost.timeUs = kernel.timeOn(target).totalUs;
    return cost;
  }

  /// Each op as its own kernel (the unfused baseline); nothing, after an
  /// error at the op, when the sums overflow.
  std::optional<GroupCost> apartCost(ArrayRef<Operation *> ops) {
    GroupCost total;
    for (Operation *op : ops) {
      std::optional<GroupCost> sum = sumOrFail(total, singleCost(op), op);
      if (!sum)
        return std::nullopt;
      total = *sum;
    }
    return total;
  }

  /// `a` + `b`, or nothing after an error at `op` (which `b` is the cost
  /// of): the planner stops, since it cannot compare the kernels.
  std::optional<GroupCost> sumOrFail(const GroupCost &a, const GroupCost &b,
                                     Operation *op) {
    std::optional<GroupCost> sum = addGroupCosts(a, b);
    if (!sum) {
      op->emitError() << "the bytes or FLOPs of the kernels tfuse-fuse "
                         "compares for this op overflow int64";
      status = failure();
    }
    return sum;
  }

  GroupCost singleCost(Operation *op) {
    return priced(describeSingleKernel(op));
  }

  GroupCost groupCost(const Group &group) {
    return kernelCost(sorted(group.ops), group.kind);
  }

  /// The fused kernel runs where its last member was; every outside user of
  /// a value it computes must come after that point.
  bool keepsOrder(const llvm::SetVector<Operation *> &ops) {
    unsigned last = 0;
    for (Operation *op : ops)
      last = std::max(last, position[op]);
    for (Operation *op : ops)
      for (Operation *user : op->getUsers())
        if (!ops.count(user) && position[user] < last)
          return false;
    return true;
  }

  void record(bool fused, FusionKind kind, Operation *producer,
              Operation *consumer, std::string rule, std::string reason,
              GroupCost apart = {}, GroupCost merged = {}) {
    FusionDecision decision;
    decision.fused = fused;
    decision.kind = kind;
    decision.producer = producer;
    decision.consumer = consumer;
    decision.rule = std::move(rule);
    decision.reason = std::move(reason);
    decision.apart = apart;
    decision.merged = merged;
    decisions.push_back(std::move(decision));
  }

  /// Tries to add `op` to `group`: legality first, then the cost model.
  bool tryMerge(Group &group, Operation *op) {
    if (failed(status))
      return false;
    std::string what = describeOp(op);
    if (groupOf.count(op)) {
      record(false, group.kind, op, group.anchor, rule::kTaken,
             what + " already belongs to a " +
                 kindName(groups[groupOf[op]].kind) + " kernel");
      return false;
    }
    if (!isElementwise(op)) {
      record(
          false, group.kind, op, group.anchor, rule::kNotElementwise,
          what + " is a " +
              stringifyOpClass(cast<CostOpInterface>(op).getOpClass()).str() +
              " op; a " + kindName(group.kind) +
              " kernel takes only elementwise ops around its anchor");
      return false;
    }
    // Ops that read no tensor (causal_mask) are computed from indices, so
    // they broadcast into any iteration space.
    bool generator = op->getNumOperands() == 0;
    ArrayRef<int64_t> shape = shapeOf(op->getResult(0));
    if (shape != ArrayRef<int64_t>(group.shape) && !generator) {
      record(false, group.kind, op, group.anchor, rule::kShape,
             what + " computes " + formatShape(shape) +
                 " but the kernel iterates over " + formatShape(group.shape));
      return false;
    }
    llvm::SetVector<Operation *> merged = group.ops;
    merged.insert(op);
    if (!keepsOrder(merged)) {
      record(false, group.kind, op, group.anchor, rule::kOrder,
             "fusing " + what +
                 " would move a value past an op that uses it before the "
                 "fused kernel could run");
      return false;
    }
    std::optional<GroupCost> apartOrNone =
        sumOrFail(groupCost(group), singleCost(op), op);
    if (!apartOrNone)
      return false;
    GroupCost apart = *apartOrNone;
    KernelCost mergedKernel = describeFusedKernel(sorted(merged), group.kind);
    if (!mergedKernel.emitted()) {
      record(false, group.kind, op, group.anchor, rule::kNoEmitter,
             "fusing " + what + " gives a kernel the compiler cannot emit: " +
                 mergedKernel.unsupported);
      return false;
    }
    GroupCost fused = priced(mergedKernel);
    bool profitable = fused.timeUs < apart.timeUs;
    record(profitable, group.kind, op, group.anchor, "",
           llvm::formatv("{0}: {1} bytes in {2:F2} us as one {3} kernel "
                         "against {4} bytes in {5:F2} us apart on {6}",
                         profitable ? "fused" : "unprofitable", fused.bytes,
                         fused.timeUs, kindName(group.kind), apart.bytes,
                         apart.timeUs, target.name)
               .str(),
           apart, fused);
    if (!profitable)
      return false;
    group.ops.insert(op);
    groupOf[op] = &group - groups.data();
    return true;
  }

  Group &newGroup(FusionKind kind, Operation *anchor, ArrayRef<int64_t> shape) {
    groups.push_back(Group{kind, anchor, {}, SmallVector<int64_t>(shape)});
    groups.back().ops.insert(anchor);
    groupOf[anchor] = groups.size() - 1;
    return groups.back();
  }

  /// Recomputes `producer`, which ops outside `group` also read, inside the
  /// group: a copy of it feeds the group's members. Taken when the group
  /// with the copy beats the group reading the producer's result, and beats
  /// merging the producer itself (whose result the kernel would then also
  /// write for the others), counting the producer's own kernel as staying
  /// for its other users. Returns the copy, or null. The original never
  /// loses its last reader here (one outside the group remains), so it is
  /// planned as any op: the last group that reads it merges it.
  Operation *tryRecompute(Group &group, Operation *producer) {
    if (failed(status) || groupOf.count(producer) || !isElementwise(producer) ||
        producer->getNumResults() != 1)
      return nullptr;
    Value result = producer->getResult(0);
    if (shapeOf(result) != ArrayRef<int64_t>(group.shape) &&
        producer->getNumOperands() != 0)
      return nullptr;
    if (llvm::all_of(result.getUsers(),
                     [&](Operation *user) { return group.ops.count(user); }))
      return nullptr;
    GroupCost reading = groupCost(group);
    // The alternative: the producer merged, its result written for others.
    std::optional<GroupCost> merging;
    llvm::SetVector<Operation *> withProducer = group.ops;
    withProducer.insert(producer);
    if (keepsOrder(withProducer)) {
      KernelCost kernel = describeFusedKernel(sorted(withProducer), group.kind);
      if (kernel.emitted())
        merging = priced(kernel);
    }
    OpBuilder builder(producer->getContext());
    builder.setInsertionPointAfter(producer);
    Operation *copy = builder.clone(*producer);
    position[copy] = position[producer];
    result.replaceUsesWithIf(copy->getResult(0), [&](OpOperand &use) {
      return group.ops.count(use.getOwner()) != 0;
    });
    llvm::SetVector<Operation *> withCopy = group.ops;
    withCopy.insert(copy);
    KernelCost kernel = describeFusedKernel(sorted(withCopy), group.kind);
    GroupCost recomputing = priced(kernel);
    std::optional<GroupCost> alsoProducer =
        kernel.emitted() ? addGroupCosts(recomputing, singleCost(producer))
                         : std::nullopt;
    bool better = alsoProducer && recomputing.timeUs < reading.timeUs &&
                  (!merging || alsoProducer->timeUs < merging->timeUs);
    if (!better) {
      copy->getResult(0).replaceAllUsesWith(result);
      position.erase(copy);
      copy->erase();
      return nullptr;
    }
    record(true, group.kind, producer, group.anchor, "",
           llvm::formatv("recomputed: {0} bytes in {1:F2} us as one {2} "
                         "kernel that recomputes it, against {3} bytes in "
                         "{4:F2} us reading its result on {5}",
                         recomputing.bytes, recomputing.timeUs,
                         kindName(group.kind), reading.bytes, reading.timeUs,
                         target.name)
               .str(),
           reading, recomputing);
    group.ops.insert(copy);
    groupOf[copy] = &group - groups.data();
    return copy;
  }

  /// Pulls elementwise producers of the group's operands in, transitively.
  void growProducers(Group &group) {
    SmallVector<Operation *> worklist(group.ops.begin(), group.ops.end());
    llvm::SmallPtrSet<Operation *, 8> tried;
    while (!worklist.empty()) {
      Operation *member = worklist.pop_back_val();
      for (Value operand : member->getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (!producer || group.ops.count(producer) ||
            isSplatConstant(operand) || !tried.insert(producer).second)
          continue;
        if (isa<ReshapeOp, ConstantOp>(producer))
          continue; // views and constants are free; no kernel to save
        if (Operation *copy = tryRecompute(group, producer)) {
          worklist.push_back(copy);
          continue;
        }
        if (tryMerge(group, producer))
          worklist.push_back(producer);
      }
    }
  }

  /// Pulls elementwise consumers of `value` in, transitively.
  void growConsumers(Group &group, Value value) {
    for (Operation *user : llvm::make_early_inc_range(value.getUsers())) {
      if (group.ops.count(user) || isa<func::ReturnOp, ReshapeOp>(user))
        continue;
      if (tryMerge(group, user))
        for (Value result : user->getResults())
          growConsumers(group, result);
    }
  }

  /// The epilogue cuBLASLt can run after a GEMM: an optional bias add over
  /// the columns, then an optional tanh-GELU or ReLU, each the single user of
  /// the previous value.
  void planGemmEpilogue(MatmulOp matmul) {
    auto refuse = [&](Operation *op, const char *ruleName, const Twine &why) {
      record(false, FusionKind::gemm_epilogue, op, matmul, ruleName, why.str());
    };
    SmallVector<Operation *> chain;
    Value value = matmul.getResult();
    for (bool biasAllowed : {true, false}) {
      if (!value.hasOneUse())
        break;
      Operation *user = *value.getUsers().begin();
      if (auto add = dyn_cast<AddOp>(user); add && biasAllowed) {
        Value bias = add.getLhs() == value ? add.getRhs() : add.getLhs();
        ArrayRef<int64_t> biasShape = shapeOf(bias);
        if (biasShape.size() != 1 || biasShape[0] != matmul.getN()) {
          refuse(user, rule::kBias,
                 "the added operand of " + describeOp(user) + " is " +
                     formatShape(biasShape) +
                     ", not a bias vector [N] over the GEMM's columns");
          break;
        }
        chain.push_back(user);
        value = add.getResult();
        continue;
      }
      if (auto gelu = dyn_cast<GeluOp>(user)) {
        if (gelu.getApproximate() == GeluApproximation::tanh)
          chain.push_back(user);
        else
          refuse(user, rule::kGeluErf,
                 describeOp(user) + " is the erf form; cuBLASLt's GELU "
                                    "epilogue computes the tanh form");
      } else if (isa<ReluOp>(user)) {
        chain.push_back(user);
      }
      break;
    }
    if (chain.empty())
      return;
    if (matmul.getRhs().getType().getRank() != 2 || matmul.getTransposeLhs())
      return refuse(chain.front(), rule::kGemmLayout,
                    "cuBLASLt epilogues apply to one GEMM over the collapsed "
                    "batch: the weight must be 2-D and lhs not transposed");
    newGroup(FusionKind::gemm_epilogue, matmul, shapeOf(matmul.getResult()));
    unsigned index = groupOf[matmul];
    for (Operation *op : chain)
      if (!tryMerge(groups[index], op))
        return;
  }

  void planRowReduction(Operation *rowOp) {
    Group &group = newGroup(FusionKind::row_reduction, rowOp,
                            shapeOf(rowOp->getOperand(0)));
    unsigned index = groupOf[rowOp];
    growProducers(groups[index]);
    // Epilogues only where the result has the row shape (not after reduce).
    if (shapeOf(rowOp->getResult(0)) == ArrayRef<int64_t>(group.shape))
      growConsumers(groups[index], rowOp->getResult(0));
  }

  void planLoop(Operation *op) {
    newGroup(FusionKind::loop, op, shapeOf(op->getResult(0)));
    growProducers(groups[groupOf[op]]);
  }

  func::FuncOp func;
  const GpuTarget &target;
  llvm::DenseMap<Operation *, unsigned> position;
  llvm::DenseMap<Operation *, unsigned> groupOf;
  std::vector<Group> groups;
  std::vector<FusionDecision> decisions;
  /// Failed after an error: a cost overflowed.
  LogicalResult status = success();
};

} // namespace

FailureOr<FusionPlan> mlir::tfuse::planFusion(func::FuncOp func,
                                              const GpuTarget &target) {
  return Planner(func, target).run();
}
