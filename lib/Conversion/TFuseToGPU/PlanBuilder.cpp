//===- PlanBuilder.cpp - a function as a bundle plan + kernels --*- C++ -*-===//
//
// Buffers (inputs, outputs, aliases, constants, an arena of temporaries),
// then one step per kernel or GEMM, each with the reference graph of the ops
// it computes (docs/bundle.md). The kernels themselves come from
// emitFunctionKernels (FunctionKernels.cpp).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Conversion/PlanBuilder.h"
#include "tfuse/Analysis/KernelCost.h"
#include "tfuse/Analysis/ReferenceGraph.h"
#include "tfuse/Bundle/Plan.h"
#include "tfuse/Conversion/TFuseToGPU.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Target/CostModel.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tfuse;

namespace {

/// The most elements of a constant buffer, whose values plan.json lists one
/// by one (2^24: 64 MiB of f32, a few hundred MB of JSON).
constexpr int64_t kMaxPlanConstantElements = int64_t(1) << 24;

struct Buffer {
  int64_t id;
  std::string name, kind; ///< input, output, temp, alias, constant
  bool checkpointTransposed = false;
  RankedTensorType type;
  int64_t aliasOf = -1, offset = 0;
  int64_t firstStep = -1, lastStep = -1; ///< lifetime of temps
  DenseElementsAttr values;              ///< constants
};

struct Step {
  bundle::StepKind kind = bundle::StepKind::Kernel;
  std::string name;
  EmittedKernel launch;  ///< kernels
  bundle::GemmCall gemm; ///< GEMMs, buffer ids as indices
  SmallVector<int64_t> inputs, outputs;
  /// The reference graph of the ops the step computes.
  ref::RefGraph graph;
  double predictedUs = 0;
  int64_t bytes = 0, flops = 0;
};

class PlanBuilder {
public:
  PlanBuilder(func::FuncOp func, const GpuTarget &target,
              ArrayRef<ScheduledKernel> kernels)
      : func(func), target(target), kernels(kernels) {}

  LogicalResult build();
  /// The plan, once built, in the bundle schema's types; `kernelModule`
  /// holds the kernels' gpu.funcs, whose signatures give the parameters.
  FailureOr<bundle::Plan> toPlan(gpu::GPUModuleOp kernelModule, StringRef ptx,
                                 StringRef cubin);

private:
  int64_t bufferOf(Value value) { return bufferIds.lookup(value); }
  int64_t addBuffer(Value value, StringRef kind, int64_t aliasOf = -1);
  LogicalResult addGemm(Operation *op, MatmulOp matmul,
                        SmallVector<Operation *> epilogue);
  LogicalResult addStep(Operation &op);
  /// Names, prices and (for kernels) launches `step` as the next kernel of
  /// the schedule, which must compute `op`.
  LogicalResult takeKernel(Step &step, Operation *op);
  /// Attaches the reference graph of `root` (a fusion's body, or the op;
  /// `yields` picks a split's piece) and appends the step.
  LogicalResult finishStep(Step step, Operation *root, ValueRange yields = {});
  /// A flash-attention kernel's step: it reads each operand in its head
  /// layout's buffer and writes `results` in theirs; its graph holds the
  /// transposes it absorbs, so the check sees the step's buffers as stored.
  LogicalResult addAttentionStep(Step step, Operation *attention,
                                 ValueRange results);
  LogicalResult assignArena();
  /// The kernels of a tfuse.gather_grad (getGatherGradKernelCount), over an
  /// f32 accumulator: the result, or a temporary of its own for a bf16 or
  /// f16 table.
  LogicalResult addGatherGrad(GatherGradOp grad);

  func::FuncOp func;
  const GpuTarget &target;
  /// The function's kernels, emitted, in execution order.
  ArrayRef<ScheduledKernel> kernels;
  size_t nextKernel = 0;
  std::vector<Buffer> buffers;
  llvm::DenseMap<Value, int64_t> bufferIds;
  std::vector<Step> steps;
  int64_t arenaBytes = 0;
};

/// The reference's type of a buffer of `type`.
FailureOr<ref::TensorType> referenceType(Location loc, RankedTensorType type) {
  FailureOr<ref::DType> dtype = toReferenceDType(loc, type.getElementType());
  if (failed(dtype))
    return failure();
  ArrayRef<int64_t> shape = type.getShape();
  return ref::TensorType{*dtype,
                         std::vector<int64_t>(shape.begin(), shape.end())};
}

int64_t PlanBuilder::addBuffer(Value value, StringRef kind, int64_t aliasOf) {
  Buffer buffer;
  buffer.id = buffers.size();
  buffer.kind = kind.str();
  buffer.type = cast<RankedTensorType>(value.getType());
  buffer.aliasOf = aliasOf;
  buffer.name = "%" + std::to_string(buffer.id);
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    unsigned index = arg.getArgNumber();
    auto name = func.getArgAttrOfType<StringAttr>(
        index, TFuseDialect::getNameAttrName());
    buffer.name = name ? name.str() : "arg" + std::to_string(index);
    buffer.checkpointTransposed = static_cast<bool>(func.getArgAttr(
        index, TFuseDialect::getCheckpointTransposedAttrName()));
  }
  buffers.push_back(buffer);
  bufferIds[value] = buffer.id;
  return buffer.id;
}

LogicalResult PlanBuilder::takeKernel(Step &step, Operation *op) {
  if (nextKernel >= kernels.size() || kernels[nextKernel].cost.op != op)
    return op->emitOpError()
           << "internal error: the plan's steps and the emitted kernels "
              "disagree at step "
           << steps.size();
  const ScheduledKernel &kernel = kernels[nextKernel++];
  // A kernel the cost model cannot count (its counts overflow int64) has no
  // time a plan could hold.
  if (!kernel.cost.emitted())
    return op->emitOpError()
           << "has no kernel the plan can price: " << kernel.cost.unsupported;
  step.name = kernel.cost.id;
  step.predictedUs = kernel.cost.timeOn(target).totalUs;
  // A validated target gives finite times; plan.json holds nothing else.
  if (!std::isfinite(step.predictedUs))
    return op->emitOpError()
           << "has a predicted time of " << step.predictedUs << " us on "
           << target.name << ", which a plan cannot hold";
  step.bytes = kernel.cost.bytes();
  step.flops = kernel.cost.flops;
  if (kernel.launch)
    step.launch = *kernel.launch;
  return success();
}

LogicalResult PlanBuilder::addGemm(Operation *op, MatmulOp matmul,
                                   SmallVector<Operation *> epilogue) {
  ArrayRef<int64_t> lhs = matmul.getLhs().getType().getShape();
  ArrayRef<int64_t> rhs = matmul.getRhs().getType().getShape();
  ArrayRef<int64_t> lhsBatch = lhs.drop_back(2), rhsBatch = rhs.drop_back(2);
  int64_t m = matmul.getM(), n = matmul.getN(), k = matmul.getK();
  int64_t batch = 1, lhsStride = m * k, rhsStride = k * n, outStride = m * n;
  if (rhsBatch.empty() && !matmul.getTransposeLhs()) {
    // A weight shared by every row: one GEMM over the collapsed batch.
    for (int64_t dim : lhsBatch)
      m *= dim;
    lhsStride = rhsStride = outStride = 0;
  } else {
    // Leading batch dims must agree; trailing lhs-only dims (rhs size 1, as
    // grouped-query attention has) fold into M.
    size_t common = 0;
    while (common < lhsBatch.size() && common < rhsBatch.size() &&
           lhsBatch.size() == rhsBatch.size() &&
           lhsBatch[common] == rhsBatch[common])
      ++common;
    int64_t folded = 1;
    for (size_t d = common; d < lhsBatch.size(); ++d) {
      if (d >= rhsBatch.size() || rhsBatch[d] != 1 || matmul.getTransposeLhs())
        return matmul.emitOpError()
               << "batch dimensions " << formatShape(lhsBatch) << " x "
               << formatShape(rhsBatch) << " are not one strided-batched GEMM";
      folded *= lhsBatch[d];
    }
    for (size_t d = 0; d < common; ++d)
      batch *= lhsBatch[d];
    m *= folded;
    lhsStride = m * k;
    outStride = m * n;
    rhsStride = k * n;
    if (batch == 1)
      lhsStride = rhsStride = outStride = 0;
  }
  // cuBLAS takes the batch count and m, n, k (and so the leading dimensions)
  // as 32-bit ints; a larger GEMM would be refused by tfuse-run.
  for (auto [name, value] : {std::pair<const char *, int64_t>{"batch", batch},
                             {"m", m},
                             {"n", n},
                             {"k", k}})
    if (value > std::numeric_limits<int32_t>::max())
      return matmul.emitOpError()
             << "is a GEMM with " << name << " = " << value
             << "; cuBLAS takes batch, m, n and k up to 2^31 - 1 = "
             << std::numeric_limits<int32_t>::max()
             << ": split the matmul or use smaller shapes";

  Step step;
  step.kind = bundle::StepKind::Gemm;
  if (failed(takeKernel(step, op)))
    return failure();
  Value result = op->getResult(0);
  bundle::Epilogue epilogueKind = bundle::Epilogue::None;
  bool hasBias = false, relu = false, gelu = false;
  for (Operation *e : epilogue) {
    if (auto add = dyn_cast<AddOp>(e)) {
      Value vector = add.getRhs();
      if (auto arg = dyn_cast<BlockArgument>(vector))
        vector = op->getOperand(arg.getArgNumber());
      step.gemm.bias = bufferOf(vector);
      hasBias = true;
    } else if (isa<ReluOp>(e)) {
      relu = true;
    } else {
      gelu = true;
    }
  }
  if (relu)
    epilogueKind =
        hasBias ? bundle::Epilogue::BiasRelu : bundle::Epilogue::Relu;
  else if (gelu)
    epilogueKind =
        hasBias ? bundle::Epilogue::BiasGelu : bundle::Epilogue::Gelu;
  else if (hasBias)
    epilogueKind = bundle::Epilogue::Bias;
  Value lhsValue = op->getOperand(0), rhsValue = op->getOperand(1);
  if (auto fusion = dyn_cast<FusionOp>(op)) {
    auto mapArg = [&](Value v) {
      return op->getOperand(cast<BlockArgument>(v).getArgNumber());
    };
    lhsValue = mapArg(matmul.getLhs());
    rhsValue = mapArg(matmul.getRhs());
  }
  FailureOr<ref::DType> dtype =
      toReferenceDType(matmul.getLoc(), matmul.getType().getElementType());
  if (failed(dtype))
    return failure();
  int64_t out = addBuffer(result, "temp");
  bundle::GemmCall &gemm = step.gemm;
  gemm.lhs = bufferOf(lhsValue);
  gemm.rhs = bufferOf(rhsValue);
  gemm.out = out;
  gemm.epilogue = epilogueKind;
  gemm.transposeLhs = matmul.getTransposeLhs();
  gemm.transposeRhs = matmul.getTransposeRhs();
  gemm.batch = batch;
  gemm.m = m;
  gemm.n = n;
  gemm.k = k;
  gemm.lhsBatchStride = lhsStride;
  gemm.rhsBatchStride = rhsStride;
  gemm.outBatchStride = outStride;
  gemm.dtype = *dtype;
  gemm.tf32 = matmul.getTf32();
  // matmul(x, x) reads one buffer: a step lists each input once.
  for (Value operand :
       llvm::SetVector<Value>(llvm::from_range, op->getOperands()))
    step.inputs.push_back(bufferOf(operand));
  step.outputs.push_back(out);
  return finishStep(std::move(step), op);
}

LogicalResult PlanBuilder::finishStep(Step step, Operation *root,
                                      ValueRange yields) {
  FailureOr<ref::RefGraph> graph;
  if (auto fusion = dyn_cast<FusionOp>(root)) {
    SmallVector<Operation *> ops;
    for (Operation &op : fusion.getBody().front().without_terminator())
      ops.push_back(&op);
    graph = buildReferenceGraph(fusion.getBody().getArguments(), ops,
                                fusion.getYield().getValues());
  } else {
    // Its arguments are the step's inputs: each operand once.
    llvm::SetVector<Value> arguments(llvm::from_range, root->getOperands());
    graph = buildReferenceGraph(arguments.getArrayRef(), {root},
                                yields.empty() ? ValueRange(root->getResults())
                                               : yields);
  }
  if (failed(graph))
    return failure();
  step.graph = std::move(*graph);
  steps.push_back(std::move(step));
  return success();
}

LogicalResult PlanBuilder::addAttentionStep(Step step, Operation *attention,
                                            ValueRange results) {
  // One argument per operand, as the kernel takes them.
  SmallVector<Value> arguments;
  SmallVector<Operation *> ops;
  for (Value operand : attention->getOperands()) {
    Value buffer = getAttentionOperandLayout(operand).buffer;
    arguments.push_back(buffer);
    // The absorbed layout ops from the buffer to the operand, in order.
    SmallVector<Operation *> chain;
    for (Value at = operand; at != buffer; at = chain.back()->getOperand(0))
      chain.push_back(at.getDefiningOp());
    for (Operation *layout : llvm::reverse(chain))
      if (!llvm::is_contained(ops, layout))
        ops.push_back(layout);
  }
  ops.push_back(attention);
  SmallVector<Value> yields;
  for (Value result : results) {
    Value buffer = getAttentionResultLayout(result).buffer;
    if (buffer != result)
      ops.push_back(buffer.getDefiningOp());
    yields.push_back(buffer);
  }
  for (Value argument : arguments)
    step.inputs.push_back(bufferOf(argument));
  for (Value yield : yields)
    step.outputs.push_back(addBuffer(yield, "temp"));
  FailureOr<ref::RefGraph> graph = buildReferenceGraph(arguments, ops, yields);
  if (failed(graph))
    return failure();
  step.graph = std::move(*graph);
  steps.push_back(std::move(step));
  return success();
}

LogicalResult PlanBuilder::addGatherGrad(GatherGradOp grad) {
  RankedTensorType table = grad.getResult().getType();
  RankedTensorType accumulatorType =
      table.clone(Float32Type::get(grad.getContext()));
  int64_t result = addBuffer(grad.getResult(), "temp");
  int64_t accumulator = result;
  if (!table.getElementType().isF32()) {
    Buffer buffer;
    buffer.id = buffers.size();
    buffer.kind = "temp";
    buffer.type = accumulatorType;
    buffer.name = "%" + std::to_string(buffer.id);
    buffers.push_back(buffer);
    accumulator = buffer.id;
  }
  FailureOr<ref::TensorType> accumulatorRef =
      referenceType(grad.getLoc(), accumulatorType);
  if (failed(accumulatorRef))
    return failure();

  // Zeroes: a splat constant (checked as one).
  Step zero;
  if (failed(takeKernel(zero, grad)))
    return failure();
  zero.outputs.push_back(accumulator);
  ref::RefOp splat;
  splat.name = "tfuse.constant";
  splat.results = {*accumulatorRef};
  splat.attributes["splat"] = 0.0;
  zero.graph.ops.push_back(splat);
  zero.graph.yields = {0};
  steps.push_back(std::move(zero));

  // The scatter-add: the op itself, with an f32 result where the table is
  // not f32 (the reference rounds its double sums once, to f32).
  Step scatter;
  if (failed(takeKernel(scatter, grad)))
    return failure();
  for (Value operand : grad->getOperands())
    scatter.inputs.push_back(bufferOf(operand));
  scatter.outputs.push_back(accumulator);
  if (accumulator == result)
    return finishStep(std::move(scatter), grad);
  FailureOr<ref::RefGraph> graph = buildReferenceGraph(
      llvm::to_vector(grad->getOperands()), {grad}, grad->getResults());
  if (failed(graph))
    return failure();
  graph->ops[0].results = {*accumulatorRef};
  scatter.graph = std::move(*graph);
  steps.push_back(std::move(scatter));

  // The rounding into the table's element type.
  Step round;
  if (failed(takeKernel(round, grad)))
    return failure();
  round.inputs.push_back(accumulator);
  round.outputs.push_back(result);
  FailureOr<ref::TensorType> tableRef = referenceType(grad.getLoc(), table);
  if (failed(tableRef))
    return failure();
  ref::RefOp cast;
  cast.name = "tfuse.cast";
  cast.operands = {0};
  cast.results = {*tableRef};
  round.graph.arguments = {*accumulatorRef};
  round.graph.ops.push_back(cast);
  round.graph.yields = {1};
  steps.push_back(std::move(round));
  return success();
}

LogicalResult PlanBuilder::addStep(Operation &op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case([&](ReshapeOp reshape) {
        // A piece of an absorbed split has no buffer; the flash kernels
        // read its reshape in the split's input.
        if (Operation *split = reshape.getInput().getDefiningOp<SplitOp>();
            split && isAbsorbedByAttention(split))
          return success();
        int64_t base = bufferOf(reshape.getInput());
        while (buffers[base].kind == "alias")
          base = buffers[base].aliasOf;
        addBuffer(reshape.getResult(), "alias", base);
        return success();
      })
      .Case([&](ConstantOp constant) -> LogicalResult {
        auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
        if (!dense)
          return constant.emitOpError() << "needs a dense value in a bundle";
        // plan.json spells out every value, a splat's too.
        if (dense.getNumElements() > kMaxPlanConstantElements)
          return constant.emitOpError()
                 << "has " << dense.getNumElements()
                 << " elements, more than the " << kMaxPlanConstantElements
                 << " (2^24) a bundle's plan.json carries for a constant";
        int64_t id = addBuffer(constant.getResult(), "constant");
        buffers[id].values = dense;
        return success();
      })
      .Case([&](MatmulOp matmul) { return addGemm(matmul, matmul, {}); })
      .Case([&](FusionOp fusion) -> LogicalResult {
        if (fusion.getKind() == FusionKind::gemm_epilogue) {
          SmallVector<Operation *> epilogue;
          MatmulOp matmul;
          for (Operation &inner : fusion.getBody().front().without_terminator())
            if (auto mm = dyn_cast<MatmulOp>(inner))
              matmul = mm;
            else
              epilogue.push_back(&inner);
          return addGemm(fusion, matmul, epilogue);
        }
        Step step;
        if (failed(takeKernel(step, fusion)))
          return failure();
        for (Value input : fusion.getInputs())
          step.inputs.push_back(bufferOf(input));
        for (Value result : fusion.getResults())
          step.outputs.push_back(addBuffer(result, "temp"));
        return finishStep(std::move(step), fusion);
      })
      .Case([&](AttentionOp attention) -> LogicalResult {
        Step step;
        if (failed(takeKernel(step, attention)))
          return failure();
        return addAttentionStep(std::move(step), attention,
                                attention->getResults());
      })
      .Case([&](AttentionGradOp grad) -> LogicalResult {
        // The query kernel writes dQ, the key kernel dK and dV.
        for (ValueRange outputs : {grad->getResults().take_front(1),
                                   grad->getResults().drop_front(1)}) {
          Step step;
          if (failed(takeKernel(step, grad)) ||
              failed(addAttentionStep(std::move(step), grad, outputs)))
            return failure();
        }
        return success();
      })
      .Case([&](RopeOp rope) -> LogicalResult {
        // Copied from the absorbed transpose's input (checked as both ops).
        Step step;
        if (failed(takeKernel(step, rope)))
          return failure();
        TransposeOp transpose = getRopeTranspose(rope);
        Value source = transpose ? transpose.getInput() : rope.getInput();
        SmallVector<Value> arguments = {source};
        if (rope.getInvFreq() != source)
          arguments.push_back(rope.getInvFreq());
        for (Value argument : arguments)
          step.inputs.push_back(bufferOf(argument));
        step.outputs.push_back(addBuffer(rope.getResult(), "temp"));
        SmallVector<Operation *> ops;
        if (transpose)
          ops.push_back(transpose);
        ops.push_back(rope);
        FailureOr<ref::RefGraph> graph =
            buildReferenceGraph(arguments, ops, rope->getResults());
        if (failed(graph))
          return failure();
        step.graph = std::move(*graph);
        steps.push_back(std::move(step));
        return success();
      })
      .Case([&](GatherGradOp grad) { return addGatherGrad(grad); })
      .Case<GatherOp, ConcatOp>([&](Operation *copy) -> LogicalResult {
        Step step;
        if (failed(takeKernel(step, copy)))
          return failure();
        // Each distinct operand once, as the kernel takes them.
        llvm::SetVector<Value> operands(llvm::from_range, copy->getOperands());
        for (Value operand : operands)
          step.inputs.push_back(bufferOf(operand));
        step.outputs.push_back(addBuffer(copy->getResult(0), "temp"));
        return finishStep(std::move(step), copy);
      })
      .Case<TransposeOp, SliceOp, SplitOp>(
          [&](Operation *layout) -> LogicalResult {
            if (isAbsorbedByRope(layout) || isAbsorbedByAttention(layout))
              return success();
            // One copy kernel per result.
            for (Value result : layout->getResults()) {
              Step step;
              if (failed(takeKernel(step, layout)))
                return failure();
              step.inputs.push_back(bufferOf(layout->getOperand(0)));
              step.outputs.push_back(addBuffer(result, "temp"));
              if (failed(finishStep(std::move(step), layout, result)))
                return failure();
            }
            return success();
          })
      .Case([&](func::ReturnOp) { return success(); })
      .Default([&](Operation *other) {
        // emitFunctionKernels refused it already.
        return other->emitOpError()
               << "internal error: no plan step for an op code generation "
                  "accepted";
      });
}

LogicalResult PlanBuilder::build() {
  if (failed(verifyArgumentSizes(func)))
    return failure();
  Block &body = func.getBody().front();
  for (BlockArgument arg : body.getArguments())
    addBuffer(arg, "input");
  for (Operation &op : body)
    if (failed(addStep(op)))
      return failure();
  if (nextKernel != kernels.size())
    return func.emitOpError()
           << "internal error: " << kernels.size() - nextKernel
           << " emitted kernels have no plan step";
  // Returned values are outputs (or aliases of one).
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  if (ret.getNumOperands() == 0)
    return func.emitOpError()
           << "returns nothing; a bundle has at least one output";
  for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
    Buffer &buffer = buffers[bufferOf(value)];
    // The first name a returned value is given (a value returned twice is
    // one buffer, so one name).
    auto name = func.getResultAttrOfType<StringAttr>(
        index, TFuseDialect::getNameAttrName());
    if (name && buffer.name.front() == '%')
      buffer.name = name.str();
    if (buffer.kind == "temp")
      buffer.kind = "output";
    else if (buffer.kind == "alias" && buffers[buffer.aliasOf].kind == "temp")
      buffers[buffer.aliasOf].kind = "output";
    else if (buffer.kind != "alias" || buffers[buffer.aliasOf].kind != "output")
      // A reshape of an argument too: a plan without a step to compute its
      // outputs is not a bundle tfuse-run can load.
      return func.emitOpError()
             << "returns a function argument or constant (or a reshape of "
                "one) directly; a bundle output must be computed";
  }
  return assignArena();
}

/// Lifetimes by step index, then first-fit offsets, 256-byte aligned.
LogicalResult PlanBuilder::assignArena() {
  auto root = [&](int64_t id) {
    while (buffers[id].kind == "alias")
      id = buffers[id].aliasOf;
    return id;
  };
  for (auto [index, step] : llvm::enumerate(steps)) {
    for (int64_t id : llvm::concat<int64_t>(step.inputs, step.outputs)) {
      Buffer &buffer = buffers[root(id)];
      if (buffer.firstStep < 0)
        buffer.firstStep = index;
      buffer.lastStep = index;
    }
  }
  struct Placed {
    int64_t begin, end, first, last;
  };
  std::vector<Placed> placed;
  for (Buffer &buffer : buffers) {
    if (buffer.kind != "temp")
      continue;
    // Each temp fits (its producer's verifier bounded it); their offsets
    // are sums, checked.
    int64_t size = *(checkedProduct(buffer.type.getShape()) *
                     (buffer.type.getElementTypeBitWidth() / 8))
                        .alignTo(256)
                        .get();
    int64_t offset = 0;
    bool moved = true;
    while (moved) {
      moved = false;
      for (const Placed &other : placed)
        if (other.first <= buffer.lastStep && buffer.firstStep <= other.last &&
            offset < other.end && other.begin - size < offset) {
          offset = other.end;
          moved = true;
        }
    }
    std::optional<int64_t> end = (CheckedInt(offset) + size).get();
    if (!end)
      return func.emitOpError()
             << "needs an arena of temporaries larger than an int64 can count";
    buffer.offset = offset;
    placed.push_back({offset, *end, buffer.firstStep, buffer.lastStep});
    arenaBytes = std::max(arenaBytes, *end);
  }
  return success();
}

/// How a kernel uses the buffer behind `arg`: the memory effects of every op
/// on it, followed through views. An op whose effects are unknown counts as
/// reading and writing, so that the runtime's checks err on the safe side.
bundle::ParamAccess accessOf(BlockArgument arg) {
  bool reads = false, writes = false;
  SmallVector<Value> worklist = {arg};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == value) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      auto effects = dyn_cast<MemoryEffectOpInterface>(user);
      if (!effects) {
        reads = writes = true;
        continue;
      }
      SmallVector<MemoryEffects::EffectInstance> found;
      effects.getEffectsOnValue(value, found);
      for (const MemoryEffects::EffectInstance &effect : found) {
        reads = reads || isa<MemoryEffects::Read>(effect.getEffect());
        writes = writes || isa<MemoryEffects::Write>(effect.getEffect());
      }
    }
  }
  if (reads && writes)
    return bundle::ParamAccess::ReadWrite;
  return writes ? bundle::ParamAccess::Write : bundle::ParamAccess::Read;
}

/// The parameters of the kernel `name`: one flat memref per buffer.
FailureOr<std::vector<bundle::KernelParam>>
kernelParams(gpu::GPUModuleOp kernelModule, StringRef name, Location loc) {
  auto func = kernelModule.lookupSymbol<gpu::GPUFuncOp>(name);
  if (!func)
    return emitError(loc) << "internal error: no gpu.func '" << name
                          << "' for a kernel step";
  std::vector<bundle::KernelParam> params;
  // The signature's inputs only: workgroup attributions are block arguments
  // too, but no parameters.
  for (BlockArgument arg :
       func.getArguments().take_front(func.getFunctionType().getNumInputs())) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type || !type.hasStaticShape())
      return func.emitOpError()
             << "internal error: argument " << arg.getArgNumber()
             << " is not a static memref";
    params.push_back({accessOf(arg), type.getNumElements() *
                                         (type.getElementTypeBitWidth() / 8)});
  }
  return params;
}

/// A plan dimension the runtime launches with 32-bit fields.
std::optional<unsigned> launchDimension(int64_t value) {
  if (value < 1 || value > std::numeric_limits<int32_t>::max())
    return std::nullopt;
  return static_cast<unsigned>(value);
}

FailureOr<bundle::Plan> PlanBuilder::toPlan(gpu::GPUModuleOp kernelModule,
                                            StringRef ptx, StringRef cubin) {
  bundle::Plan plan;
  plan.function = func.getSymName().str();
  plan.target = {target.name, target.smArch, target.memoryBandwidthGBps,
                 target.achievableBandwidthGBps()};
  plan.ptxFile = ptx.str();
  if (!cubin.empty())
    plan.cubinFile = cubin.str();
  plan.arenaBytes = arenaBytes;
  for (const Buffer &buffer : buffers) {
    bundle::PlanBuffer out;
    out.id = buffer.id;
    out.name = buffer.name;
    out.checkpointTransposed = buffer.checkpointTransposed;
    out.shape.assign(buffer.type.getShape().begin(),
                     buffer.type.getShape().end());
    FailureOr<ref::DType> dtype =
        toReferenceDType(func.getLoc(), buffer.type.getElementType());
    if (failed(dtype))
      return failure();
    out.dtype = *dtype;
    out.bytes = *(checkedProduct(buffer.type.getShape()) *
                  (buffer.type.getElementTypeBitWidth() / 8))
                     .get();
    out.kind = llvm::StringSwitch<bundle::BufferKind>(buffer.kind)
                   .Case("input", bundle::BufferKind::Input)
                   .Case("output", bundle::BufferKind::Output)
                   .Case("alias", bundle::BufferKind::Alias)
                   .Case("constant", bundle::BufferKind::Constant)
                   .Default(bundle::BufferKind::Temp);
    out.offset = buffer.offset;
    out.aliasOf = buffer.aliasOf;
    if (buffer.values && buffer.values.getElementType().isInteger()) {
      // Index constants (i32, i64: T5's relative position buckets) as
      // doubles, exact below 2^53.
      if (buffer.values.isSplat())
        out.values.assign(
            buffer.type.getNumElements(),
            static_cast<double>(
                buffer.values.getSplatValue<APInt>().getSExtValue()));
      else
        for (const APInt &v : buffer.values.getValues<APInt>())
          out.values.push_back(static_cast<double>(v.getSExtValue()));
    } else if (buffer.values) {
      if (buffer.values.isSplat())
        out.values.assign(
            buffer.type.getNumElements(),
            buffer.values.getSplatValue<APFloat>().convertToDouble());
      else
        for (const APFloat &v : buffer.values.getValues<APFloat>())
          out.values.push_back(v.convertToDouble());
    }
    plan.buffers.push_back(std::move(out));
  }
  Block &body = func.getBody().front();
  for (BlockArgument arg : body.getArguments())
    plan.inputs.push_back(bufferOf(arg));
  for (Value value : body.getTerminator()->getOperands())
    plan.outputs.push_back(bufferOf(value));
  for (const Step &step : steps) {
    bundle::PlanStep out;
    out.kind = step.kind;
    out.name = step.name;
    out.inputs.assign(step.inputs.begin(), step.inputs.end());
    out.outputs.assign(step.outputs.begin(), step.outputs.end());
    out.predictedUs = step.predictedUs;
    out.bytes = step.bytes;
    out.flops = step.flops;
    out.ops = step.graph;
    out.gemm = step.gemm;
    if (step.kind == bundle::StepKind::Kernel) {
      bundle::KernelLaunch &launch = out.launch;
      launch.kernel = step.launch.name;
      launch.templateName = step.launch.templateName;
      for (int d = 0; d < 3; ++d) {
        std::optional<unsigned> grid = launchDimension(step.launch.grid[d]);
        std::optional<unsigned> block = launchDimension(step.launch.block[d]);
        // At the function's location, without the op: the message says it.
        if (step.launch.grid[d] < 1 || step.launch.block[d] < 1)
          return emitError(func.getLoc())
                 << "kernel " << step.name
                 << " computes no elements (a tensor with a zero-size "
                    "dimension): tfuse-compile emits no empty kernels";
        if (!grid || !block)
          return emitError(func.getLoc())
                 << "kernel " << step.name << " needs a grid of "
                 << step.launch.grid[d] << " blocks in dimension " << d
                 << ", more than a launch can have";
        launch.grid[d] = *grid;
        launch.block[d] = *block;
      }
      launch.sharedBytes = step.launch.sharedBytes;
      launch.args.assign(step.inputs.begin(), step.inputs.end());
      launch.args.insert(launch.args.end(), step.outputs.begin(),
                         step.outputs.end());
      FailureOr<std::vector<bundle::KernelParam>> params =
          kernelParams(kernelModule, launch.kernel, func.getLoc());
      if (failed(params))
        return failure();
      launch.params = std::move(*params);
    }
    plan.steps.push_back(std::move(out));
  }
  return plan;
}

/// Whether a value holds no elements (a zero-size dimension).
bool isEmptyTensor(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && shaped.hasRank() && llvm::is_contained(shaped.getShape(), 0);
}

/// Refuses a function with an empty tensor anywhere, at the value: a bundle's
/// buffers hold at least one element (plan.json's shapes are >= 1), and
/// tfuse-compile emits no empty kernels or GEMMs.
LogicalResult checkNoEmptyTensors(func::FuncOp func) {
  for (BlockArgument arg : func.getArguments())
    if (isEmptyTensor(arg.getType()))
      return emitError(func.getLoc())
             << "argument #" << arg.getArgNumber() << " (" << arg.getType()
             << ") has a zero-size dimension: tfuse-compile emits no empty "
                "kernels or GEMMs";
  WalkResult walk = func.walk([](Operation *op) {
    for (Value value : op->getResults())
      if (isEmptyTensor(value.getType())) {
        emitError(value.getLoc())
            << "'" << op->getName() << "' produces " << value.getType()
            << ", which has a zero-size dimension: tfuse-compile emits no "
               "empty kernels or GEMMs";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

} // namespace

FailureOr<bundle::Plan> mlir::tfuse::buildPlan(func::FuncOp func,
                                               const GpuTarget &target,
                                               gpu::GPUModuleOp kernels,
                                               StringRef ptxFile,
                                               StringRef cubinFile) {
  if (failed(checkNoEmptyTensors(func)))
    return failure();
  FailureOr<std::vector<ScheduledKernel>> emitted =
      emitFunctionKernels(func, kernels);
  if (failed(emitted))
    return failure();
  PlanBuilder builder(func, target, *emitted);
  if (failed(builder.build()))
    return failure();
  return builder.toPlan(kernels, ptxFile, cubinFile);
}
