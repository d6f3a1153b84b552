//===- PlanBuilder.cpp - a function as a bundle plan + kernels --*- C++ -*-===//
//
// Buffers (inputs, outputs, aliases, constants, an arena of temporaries),
// then one step per kernel or GEMM, each with the reference graph of the ops
// it computes (docs/bundle.md).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Conversion/PlanBuilder.h"
#include "tfuse/Analysis/KernelCost.h"
#include "tfuse/Conversion/TFuseToGPU.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Target/CostModel.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::tfuse;

namespace {

constexpr int kPlanSchemaVersion = 1;

struct Buffer {
  int64_t id;
  std::string name, kind; ///< input, output, temp, alias, constant
  RankedTensorType type;
  int64_t aliasOf = -1, offset = 0;
  int64_t firstStep = -1, lastStep = -1; ///< lifetime of temps
  DenseElementsAttr values;              ///< constants
};

struct Step {
  std::string kind, name; ///< "kernel" or "gemm"
  KernelLaunch launch;    ///< kernels
  SmallVector<int64_t> inputs, outputs;
  /// GEMM fields in the order docs/bundle.md lists them.
  std::vector<std::pair<std::string, llvm::json::Value>> gemm;
  /// The op the step computes (a fusion, a matmul or a layout op), for the
  /// reference graph; `graphYields` picks one piece of a split.
  SmallVector<Operation *> ops;
  SmallVector<Value> graphYields;
  double predictedUs = 0;
  int64_t bytes = 0, flops = 0;
};

bool isSplat(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  auto dense = constant ? dyn_cast<DenseElementsAttr>(constant.getValue())
                        : DenseElementsAttr();
  return dense && dense.isSplat();
}

/// Wraps a standalone elementwise or row op into a single-op fusion so the
/// kernel emitters see one shape of input; splat constants move inside.
void wrapStandaloneOps(func::FuncOp func) {
  SmallVector<Operation *> toWrap;
  for (Operation &op : func.getBody().front()) {
    auto cost = dyn_cast<CostOpInterface>(&op);
    if (!cost || isa<FusionOp>(op))
      continue;
    OpClass opClass = cost.getOpClass();
    if (opClass == OpClass::Elementwise ||
        (opClass == OpClass::Reduction))
      toWrap.push_back(&op);
  }
  OpBuilder b(func.getContext());
  for (Operation *op : toWrap) {
    b.setInsertionPoint(op);
    SmallVector<Value> inputs;
    for (Value operand : op->getOperands())
      if (!isSplat(operand) && !llvm::is_contained(inputs, operand))
        inputs.push_back(operand);
    FusionKind kind =
        cast<CostOpInterface>(op).getOpClass() == OpClass::Reduction
            ? FusionKind::row_reduction
            : FusionKind::loop;
    auto fusion = FusionOp::create(b, op->getLoc(), op->getResultTypes(), kind,
                                   inputs);
    SmallVector<Location> locs(inputs.size(), op->getLoc());
    Block *body = b.createBlock(&fusion.getBody(), {},
                                ValueRange(inputs).getTypes(), locs);
    IRMapping mapping;
    mapping.map(inputs, body->getArguments());
    for (Value operand : op->getOperands())
      if (isSplat(operand) && !mapping.contains(operand))
        b.clone(*operand.getDefiningOp(), mapping);
    Operation *clone = b.clone(*op, mapping);
    YieldOp::create(b, op->getLoc(), clone->getResults());
    op->replaceAllUsesWith(fusion->getResults());
    op->erase();
  }
}

class PlanBuilder {
public:
  PlanBuilder(func::FuncOp func, const GpuTarget &target,
              gpu::GPUModuleOp kernels)
      : func(func), target(target), kernels(kernels) {}

  LogicalResult build();
  void write(llvm::raw_ostream &os, StringRef ptx, StringRef cubin);

private:
  int64_t bufferOf(Value value) { return bufferIds.lookup(value); }
  int64_t addBuffer(Value value, StringRef kind, int64_t aliasOf = -1);
  LogicalResult addGemm(Operation *op, MatmulOp matmul,
                        SmallVector<Operation *> epilogue);
  LogicalResult addStep(Operation &op);
  /// Names and prices `step` as the next kernel of the schedule, which
  /// must compute `op`.
  LogicalResult priceStep(Step &step, Operation *op);
  void assignArena();
  void writeGraph(llvm::json::OStream &json, const Step &step);

  func::FuncOp func;
  const GpuTarget &target;
  gpu::GPUModuleOp kernels;
  std::vector<Buffer> buffers;
  llvm::DenseMap<Value, int64_t> bufferIds;
  std::vector<Step> steps;
  int64_t arenaBytes = 0;
  /// The kernels of `func` as the report and the fusion pass price them.
  std::vector<KernelCost> schedule;
};

int64_t PlanBuilder::addBuffer(Value value, StringRef kind, int64_t aliasOf) {
  Buffer buffer;
  buffer.id = buffers.size();
  buffer.kind = kind.str();
  buffer.type = cast<RankedTensorType>(value.getType());
  buffer.aliasOf = aliasOf;
  buffer.name = "%" + std::to_string(buffer.id);
  if (auto arg = dyn_cast<BlockArgument>(value))
    buffer.name = "arg" + std::to_string(arg.getArgNumber());
  buffers.push_back(buffer);
  bufferIds[value] = buffer.id;
  return buffer.id;
}

LogicalResult PlanBuilder::priceStep(Step &step, Operation *op) {
  if (steps.size() >= schedule.size() || schedule[steps.size()].op != op)
    return op->emitOpError()
           << "internal error: the plan's steps and the kernel schedule "
              "(lib/Analysis/KernelCost.cpp) disagree at step "
           << steps.size();
  const KernelCost &kernel = schedule[steps.size()];
  step.name = kernel.id;
  step.predictedUs = kernel.timeOn(target).totalUs;
  step.bytes = kernel.bytes();
  step.flops = kernel.flops;
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
      if (d >= rhsBatch.size() || rhsBatch[d] != 1 ||
          matmul.getTransposeLhs())
        return matmul.emitOpError()
               << "batch dimensions " << formatShape(lhsBatch) << " x "
               << formatShape(rhsBatch)
               << " are not one strided-batched GEMM";
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

  Step step;
  step.kind = "gemm";
  if (failed(priceStep(step, op)))
    return failure();
  Value result = op->getResult(0);
  std::string epilogueName = "none";
  int64_t bias = -1;
  for (Operation *e : epilogue) {
    if (auto add = dyn_cast<AddOp>(e)) {
      Value vector = add.getRhs();
      if (auto arg = dyn_cast<BlockArgument>(vector))
        vector = op->getOperand(arg.getArgNumber());
      bias = bufferOf(vector);
      epilogueName = "bias";
    } else {
      std::string act = isa<ReluOp>(e) ? "relu" : "gelu";
      epilogueName = epilogueName == "bias" ? "bias_" + act : act;
    }
  }
  Value lhsValue = op->getOperand(0), rhsValue = op->getOperand(1);
  if (auto fusion = dyn_cast<FusionOp>(op)) {
    auto mapArg = [&](Value v) {
      return op->getOperand(cast<BlockArgument>(v).getArgNumber());
    };
    lhsValue = mapArg(matmul.getLhs());
    rhsValue = mapArg(matmul.getRhs());
  }
  int64_t out = addBuffer(result, "temp");
  std::vector<std::pair<std::string, llvm::json::Value>> gemm{
      {"lhs", bufferOf(lhsValue)}, {"rhs", bufferOf(rhsValue)},
      {"out", out}, {"epilogue", epilogueName},
      {"transpose_lhs", matmul.getTransposeLhs()},
      {"transpose_rhs", matmul.getTransposeRhs()},
      {"batch", batch}, {"m", m}, {"n", n}, {"k", k},
      {"lhs_batch_stride", lhsStride}, {"rhs_batch_stride", rhsStride},
      {"out_batch_stride", outStride},
      {"dtype", formatElementType(matmul.getType().getElementType())}};
  if (bias >= 0)
    gemm.insert(gemm.begin() + 3, {"bias", bias});
  step.gemm = std::move(gemm);
  for (Value operand : op->getOperands())
    step.inputs.push_back(bufferOf(operand));
  step.outputs.push_back(out);
  step.ops.push_back(op);
  steps.push_back(std::move(step));
  return success();
}

LogicalResult PlanBuilder::addStep(Operation &op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      .Case([&](ReshapeOp reshape) {
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
        step.kind = "kernel";
        if (failed(priceStep(step, fusion)))
          return failure();
        FailureOr<KernelLaunch> launch =
            emitFusionKernel(kernels, fusion, step.name);
        if (failed(launch))
          return failure();
        step.launch = *launch;
        for (Value input : fusion.getInputs())
          step.inputs.push_back(bufferOf(input));
        for (Value result : fusion.getResults())
          step.outputs.push_back(addBuffer(result, "temp"));
        step.ops.push_back(fusion);
        steps.push_back(std::move(step));
        return success();
      })
      .Case<TransposeOp, SliceOp, SplitOp>([&](Operation *layout) -> LogicalResult {
        auto input = cast<RankedTensorType>(layout->getOperand(0).getType());
        for (auto [index, result] : llvm::enumerate(layout->getResults())) {
          auto output = cast<RankedTensorType>(result.getType());
          SmallVector<int64_t> perm =
              llvm::to_vector(llvm::seq<int64_t>(0, output.getRank()));
          SmallVector<int64_t> offsets(output.getRank(), 0);
          if (auto transpose = dyn_cast<TransposeOp>(layout))
            perm.assign(transpose.getPerm().begin(), transpose.getPerm().end());
          else if (auto slice = dyn_cast<SliceOp>(layout))
            offsets.assign(slice.getOffsets().begin(), slice.getOffsets().end());
          else {
            auto split = cast<SplitOp>(layout);
            for (size_t i = 0; i < index; ++i)
              offsets[split.getAxis()] += cast<RankedTensorType>(
                  split.getResult(i).getType()).getDimSize(split.getAxis());
          }
          Step step;
          step.kind = "kernel";
          if (failed(priceStep(step, layout)))
            return failure();
          FailureOr<KernelLaunch> launch = emitCopyKernel(
              kernels, layout->getLoc(), input, output, perm, offsets, step.name);
          if (failed(launch))
            return failure();
          step.launch = *launch;
          step.inputs.push_back(bufferOf(layout->getOperand(0)));
          step.outputs.push_back(addBuffer(result, "temp"));
          step.ops.push_back(layout);
          step.graphYields.push_back(result);
          steps.push_back(std::move(step));
        }
        return success();
      })
      .Case([&](func::ReturnOp) { return success(); })
      .Default([&](Operation *other) {
        return other->emitOpError()
               << "has no GPU code generation yet (decompose attention "
                  "first; gather and concat have no emitter)";
      });
}

LogicalResult PlanBuilder::build() {
  schedule = scheduleKernels(func);
  Block &body = func.getBody().front();
  for (BlockArgument arg : body.getArguments())
    addBuffer(arg, "input");
  for (Operation &op : body)
    if (failed(addStep(op)))
      return failure();
  // Returned values are outputs (or aliases of one).
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (Value value : ret.getOperands()) {
    Buffer &buffer = buffers[bufferOf(value)];
    if (buffer.kind == "temp")
      buffer.kind = "output";
    else if (buffer.kind == "alias" && buffers[buffer.aliasOf].kind == "temp")
      buffers[buffer.aliasOf].kind = "output";
    else if (buffer.kind != "alias")
      return func.emitOpError()
             << "returns a function argument or constant directly; a bundle "
                "output must be computed";
  }
  assignArena();
  return success();
}

/// Lifetimes by step index, then first-fit offsets, 256-byte aligned.
void PlanBuilder::assignArena() {
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
    int64_t size = llvm::alignTo(buffer.type.getNumElements() *
                                     (buffer.type.getElementTypeBitWidth() / 8),
                                 256);
    int64_t offset = 0;
    bool moved = true;
    while (moved) {
      moved = false;
      for (const Placed &other : placed)
        if (other.first <= buffer.lastStep && buffer.firstStep <= other.last &&
            offset < other.end && other.begin < offset + size) {
          offset = other.end;
          moved = true;
        }
    }
    buffer.offset = offset;
    placed.push_back({offset, offset + size, buffer.firstStep, buffer.lastStep});
    arenaBytes = std::max(arenaBytes, offset + size);
  }
}

void writeTensorType(llvm::json::OStream &json, Type type) {
  auto tensor = cast<RankedTensorType>(type);
  json.object([&] {
    json.attributeArray("shape", [&] {
      for (int64_t dim : tensor.getShape())
        json.value(dim);
    });
    json.attribute("dtype", formatElementType(tensor.getElementType()));
  });
}

/// The attributes docs/bundle.md lists for `op`.
void writeAttributes(llvm::json::OStream &json, Operation *op) {
  json.attributeObject("attributes", [&] {
    llvm::TypeSwitch<Operation *>(op)
        .Case([&](MatmulOp m) {
          json.attribute("transpose_lhs", m.getTransposeLhs());
          json.attribute("transpose_rhs", m.getTransposeRhs());
        })
        .Case([&](GeluOp g) {
          json.attribute("approximate",
                         stringifyGeluApproximation(g.getApproximate()));
        })
        .Case([&](ConstantOp c) {
          auto dense = cast<DenseElementsAttr>(c.getValue());
          if (dense.isSplat()) {
            json.attribute("splat",
                           dense.getSplatValue<APFloat>().convertToDouble());
            return;
          }
          json.attributeArray("values", [&] {
            for (const APFloat &v : dense.getValues<APFloat>())
              json.value(v.convertToDouble());
          });
        })
        .Case([&](ReduceOp r) {
          json.attribute("kind", stringifyReduceKind(r.getKind()));
          json.attribute("axis", (int64_t)r.getAxis());
          json.attribute("keep_dims", r.getKeepDims());
        })
        .Case([&](SoftmaxOp s) { json.attribute("axis", (int64_t)s.getAxis()); })
        .Case([&](LayerNormOp n) {
          json.attribute("epsilon", n.getEpsilon().convertToDouble());
          json.attribute("has_gamma", (bool)n.getGamma());
          json.attribute("has_beta", (bool)n.getBeta());
        })
        .Case([&](RmsNormOp n) {
          json.attribute("epsilon", n.getEpsilon().convertToDouble());
          json.attribute("has_gamma", (bool)n.getGamma());
        })
        .Case([&](DropoutOp d) {
          json.attribute("p", d.getP().convertToDouble());
          json.attribute("seed", (int64_t)d.getSeed());
        })
        .Case([&](TransposeOp t) {
          json.attributeArray("perm", [&] {
            for (int64_t p : t.getPerm())
              json.value(p);
          });
        })
        .Case([&](SliceOp s) {
          json.attributeArray("offsets", [&] {
            for (int64_t o : s.getOffsets())
              json.value(o);
          });
        })
        .Case([&](SplitOp s) { json.attribute("axis", (int64_t)s.getAxis()); })
        .Case([&](ConcatOp c) { json.attribute("axis", (int64_t)c.getAxis()); });
  });
}

/// The ops a step computes, numbered as docs/bundle.md says: the step's
/// inputs first, then each op's results.
void PlanBuilder::writeGraph(llvm::json::OStream &json, const Step &step) {
  Operation *root = step.ops.front();
  SmallVector<Operation *> ops;
  SmallVector<Value> args;
  SmallVector<Value> yields;
  if (auto fusion = dyn_cast<FusionOp>(root)) {
    for (Operation &op : fusion.getBody().front().without_terminator())
      ops.push_back(&op);
    llvm::append_range(args, fusion.getBody().getArguments());
    llvm::append_range(yields, fusion.getYield().getValues());
  } else {
    ops.push_back(root);
    llvm::append_range(args, root->getOperands());
    if (step.graphYields.empty())
      llvm::append_range(yields, root->getResults());
    else
      yields = step.graphYields;
  }
  llvm::DenseMap<Value, int64_t> numbers;
  int64_t next = 0;
  for (Value arg : args)
    numbers[arg] = next++;
  json.attributeObject("ops", [&] {
    json.attributeArray("arguments", [&] {
      for (Value arg : args)
        writeTensorType(json, arg.getType());
    });
    json.attributeArray("ops", [&] {
      for (Operation *op : ops) {
        json.object([&] {
          json.attribute("op", op->getName().getStringRef());
          json.attributeArray("operands", [&] {
            for (Value operand : op->getOperands())
              json.value(numbers.lookup(operand));
          });
          json.attributeArray("results", [&] {
            for (Value result : op->getResults())
              writeTensorType(json, result.getType());
          });
          writeAttributes(json, op);
        });
        for (Value result : op->getResults())
          numbers[result] = next++;
      }
    });
    json.attributeArray("yields", [&] {
      for (Value yield : yields)
        json.value(numbers.lookup(yield));
    });
  });
}

void PlanBuilder::write(llvm::raw_ostream &os, StringRef ptx,
                        StringRef cubin) {
  llvm::json::OStream json(os, 2);
  auto ids = [&](StringRef key, ArrayRef<int64_t> values) {
    json.attributeArray(key, [&] {
      for (int64_t value : values)
        json.value(value);
    });
  };
  json.object([&] {
    json.attribute("schema_version", kPlanSchemaVersion);
    json.attribute("function", func.getSymName());
    json.attributeObject("target", [&] {
      json.attribute("name", target.name);
      json.attribute("sm_arch", target.smArch);
      json.attribute("bandwidth_gbps", target.memoryBandwidthGBps);
      json.attribute("achievable_bandwidth_gbps",
                     target.achievableBandwidthGBps());
    });
    json.attributeObject("module", [&] {
      json.attribute("ptx", ptx);
      if (!cubin.empty())
        json.attribute("cubin", cubin);
    });
    json.attribute("arena_bytes", arenaBytes);
    json.attributeArray("buffers", [&] {
      for (const Buffer &buffer : buffers)
        json.object([&] {
          json.attribute("id", buffer.id);
          json.attribute("name", buffer.name);
          json.attributeArray("shape", [&] {
            for (int64_t dim : buffer.type.getShape())
              json.value(dim);
          });
          json.attribute("dtype", formatElementType(buffer.type.getElementType()));
          json.attribute("bytes", buffer.type.getNumElements() *
                                      (buffer.type.getElementTypeBitWidth() / 8));
          json.attribute("kind", buffer.kind);
          if (buffer.kind == "temp")
            json.attribute("offset", buffer.offset);
          if (buffer.kind == "alias")
            json.attribute("alias_of", buffer.aliasOf);
          if (buffer.kind == "constant")
            json.attributeArray("values", [&] {
              if (buffer.values.isSplat()) {
                double v = buffer.values.getSplatValue<APFloat>()
                               .convertToDouble();
                for (int64_t i = 0; i < buffer.type.getNumElements(); ++i)
                  json.value(v);
                return;
              }
              for (const APFloat &v : buffer.values.getValues<APFloat>())
                json.value(v.convertToDouble());
            });
        });
    });
    SmallVector<int64_t> inputs, outputs;
    Block &body = func.getBody().front();
    for (BlockArgument arg : body.getArguments())
      inputs.push_back(bufferOf(arg));
    for (Value value : body.getTerminator()->getOperands())
      outputs.push_back(bufferOf(value));
    ids("inputs", inputs);
    ids("outputs", outputs);
    json.attributeArray("steps", [&] {
      for (const Step &step : steps)
        json.object([&] {
          json.attribute("kind", step.kind);
          json.attribute("name", step.name);
          if (step.kind == "kernel") {
            json.attribute("kernel", step.launch.name);
            json.attribute("template", step.launch.templateName);
            json.attributeArray("grid", [&] {
              for (int64_t v : step.launch.grid)
                json.value(v);
            });
            json.attributeArray("block", [&] {
              for (int64_t v : step.launch.block)
                json.value(v);
            });
            json.attribute("shared_bytes", step.launch.sharedBytes);
            SmallVector<int64_t> args(step.inputs);
            llvm::append_range(args, step.outputs);
            ids("args", args);
          } else {
            for (const auto &[key, value] : step.gemm)
              json.attribute(key, value);
          }
          ids("inputs", step.inputs);
          ids("outputs", step.outputs);
          json.attribute("predicted_us", step.predictedUs);
          json.attribute("bytes", step.bytes);
          json.attribute("flops", step.flops);
          writeGraph(json, step);
        });
    });
  });
  os << "\n";
}

} // namespace

LogicalResult mlir::tfuse::buildPlan(func::FuncOp func, const GpuTarget &target,
                                     gpu::GPUModuleOp kernels, StringRef ptxFile,
                                     StringRef cubinFile,
                                     llvm::raw_ostream &plan) {
  wrapStandaloneOps(func);
  PlanBuilder builder(func, target, kernels);
  if (failed(builder.build()))
    return failure();
  builder.write(plan, ptxFile, cubinFile);
  return success();
}
