//===- FunctionKernels.cpp - every kernel of a function ---------*- C++ -*-===//
//
// Walks a function's top-level ops beside its kernel schedule and emits the
// gpu.func of each kernel: the one code-generation step that tfuse-compile's
// plan builder and the tfuse-lower-to-gpu pass share, so that both see the
// same kernels under the same names.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Conversion/TFuseToGPU.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tfuse;

namespace {

/// Wraps a standalone elementwise or row op into a single-op fusion so the
/// kernel emitters see one shape of input; splat constants move inside.
void wrapStandaloneOps(func::FuncOp func) {
  SmallVector<Operation *> toWrap;
  for (Operation &op : func.getBody().front()) {
    auto cost = dyn_cast<CostOpInterface>(&op);
    if (!cost || isa<FusionOp>(op))
      continue;
    OpClass opClass = cost.getOpClass();
    if (opClass == OpClass::Elementwise || opClass == OpClass::Reduction)
      toWrap.push_back(&op);
  }
  OpBuilder b(func.getContext());
  for (Operation *op : toWrap) {
    b.setInsertionPoint(op);
    SmallVector<Value> inputs;
    for (Value operand : op->getOperands())
      if (!isSplatConstant(operand) && !llvm::is_contained(inputs, operand))
        inputs.push_back(operand);
    FusionKind kind =
        cast<CostOpInterface>(op).getOpClass() == OpClass::Reduction
            ? FusionKind::row_reduction
            : FusionKind::loop;
    auto fusion =
        FusionOp::create(b, op->getLoc(), op->getResultTypes(), kind, inputs);
    SmallVector<Location> locs(inputs.size(), op->getLoc());
    Block *body = b.createBlock(&fusion.getBody(), {},
                                ValueRange(inputs).getTypes(), locs);
    IRMapping mapping;
    mapping.map(inputs, body->getArguments());
    for (Value operand : op->getOperands())
      if (isSplatConstant(operand) && !mapping.contains(operand))
        b.clone(*operand.getDefiningOp(), mapping);
    Operation *clone = b.clone(*op, mapping);
    YieldOp::create(b, op->getLoc(), clone->getResults());
    op->replaceAllUsesWith(fusion->getResults());
    op->erase();
  }
}

/// Moves the optimizer updates (tfuse.adamw, tfuse.sgd) of `func` into
/// multi_tensor fusions (OptimizerGroup::launches: as few as the kernel
/// parameter space allows), placed where the last of them was. Fails at an
/// update that reads another's result, or whose result is used before the
/// last update.
LogicalResult groupOptimizerUpdates(func::FuncOp func) {
  OptimizerGroup group = findOptimizerGroup(func.getBody().front());
  if (group.updates.empty())
    return success();
  if (!group.problem.empty())
    return group.at->emitOpError() << group.problem;
  Operation *last = group.updates.back();
  Location loc = last->getLoc();
  OpBuilder b(last->getNextNode());
  for (ArrayRef<Operation *> updates : group.launches) {
    llvm::SetVector<Value> inputs;
    SmallVector<Value> results;
    for (Operation *update : updates) {
      inputs.insert(update->operand_begin(), update->operand_end());
      for (Value result : update->getResults())
        if (!result.use_empty())
          results.push_back(result);
    }
    if (results.empty())
      continue;
    SmallVector<Type> types;
    for (Value result : results)
      types.push_back(result.getType());
    auto fusion = FusionOp::create(b, loc, types, FusionKind::multi_tensor,
                                   inputs.getArrayRef());
    SmallVector<Location> locs(inputs.size(), loc);
    OpBuilder::InsertionGuard guard(b);
    Block *body =
        b.createBlock(&fusion.getBody(), {},
                      ValueRange(inputs.getArrayRef()).getTypes(), locs);
    IRMapping mapping;
    mapping.map(inputs.getArrayRef(), body->getArguments());
    for (Operation *update : updates)
      b.clone(*update, mapping);
    SmallVector<Value> yielded;
    for (Value result : results)
      yielded.push_back(mapping.lookup(result));
    YieldOp::create(b, loc, yielded);
    for (auto [result, replacement] : llvm::zip(results, fusion.getResults()))
      result.replaceAllUsesWith(replacement);
    for (Operation *update : llvm::reverse(updates))
      update->erase();
  }
  return success();
}

/// The copy kernel of piece `piece` of a layout op (transpose, slice, or a
/// result of split): output coordinates c read the input at perm(c) +
/// offsets.
FailureOr<EmittedKernel> emitLayoutPiece(gpu::GPUModuleOp kernels,
                                         Operation *layout, unsigned piece,
                                         StringRef name) {
  auto input = cast<RankedTensorType>(layout->getOperand(0).getType());
  auto output = cast<RankedTensorType>(layout->getResult(piece).getType());
  SmallVector<int64_t> perm =
      llvm::to_vector(llvm::seq<int64_t>(0, output.getRank()));
  SmallVector<int64_t> offsets(output.getRank(), 0);
  if (auto transpose = dyn_cast<TransposeOp>(layout)) {
    perm.assign(transpose.getPerm().begin(), transpose.getPerm().end());
  } else if (auto slice = dyn_cast<SliceOp>(layout)) {
    offsets.assign(slice.getOffsets().begin(), slice.getOffsets().end());
  } else {
    auto split = cast<SplitOp>(layout);
    for (unsigned i = 0; i < piece; ++i)
      offsets[split.getAxis()] +=
          cast<RankedTensorType>(split.getResult(i).getType())
              .getDimSize(split.getAxis());
  }
  return emitCopyKernel(kernels, layout->getLoc(), input, output, perm, offsets,
                        name);
}

/// The copy kernel of `rope`: the transpose it absorbs, rotating as it
/// copies, or a plain copy of the rope's input.
FailureOr<EmittedKernel> emitRopeKernel(gpu::GPUModuleOp kernels, RopeOp rope,
                                        StringRef name) {
  RankedTensorType output = rope.getResult().getType();
  RankedTensorType input = output;
  SmallVector<int64_t> perm =
      llvm::to_vector(llvm::seq<int64_t>(0, output.getRank()));
  if (TransposeOp transpose = getRopeTranspose(rope)) {
    input = transpose.getInput().getType();
    perm.assign(transpose.getPerm().begin(), transpose.getPerm().end());
  }
  SmallVector<int64_t> offsets(output.getRank(), 0);
  CopyRotation rotation{rope.getInvFreq().getType(),
                        rope.getAttentionScaling().convertToDouble()};
  return emitCopyKernel(kernels, rope.getLoc(), input, output, perm, offsets,
                        name, &rotation);
}

/// How many kernels (or GEMMs) the top-level `op` runs as; nullopt when no
/// code generation covers it.
std::optional<unsigned> countKernels(Operation &op) {
  if (isAbsorbedByRope(&op) || isAbsorbedByAttention(&op))
    return 0u;
  return llvm::TypeSwitch<Operation *, std::optional<unsigned>>(&op)
      .Case<ReshapeOp, ConstantOp, func::ReturnOp>(
          [](Operation *) { return 0u; })
      .Case<MatmulOp, FusionOp, TransposeOp, SliceOp, GatherOp, ConcatOp,
            RopeOp>([](Operation *) { return 1u; })
      .Case([](SplitOp split) { return split.getNumResults(); })
      .Case([](GatherGradOp grad) { return getGatherGradKernelCount(grad); })
      .Case([](AttentionOp attention) -> std::optional<unsigned> {
        if (checkAttentionKernel(attention).empty())
          return 1u;
        return std::nullopt;
      })
      .Case([](AttentionGradOp grad) -> std::optional<unsigned> {
        if (checkAttentionGradKernel(grad).empty())
          return 2u;
        return std::nullopt;
      })
      .Default([](Operation *) { return std::nullopt; });
}

} // namespace

FailureOr<std::vector<ScheduledKernel>>
mlir::tfuse::emitFunctionKernels(func::FuncOp func, gpu::GPUModuleOp kernels) {
  wrapStandaloneOps(func);
  if (failed(groupOptimizerUpdates(func)))
    return failure();
  std::vector<KernelCost> schedule = scheduleKernels(func);
  std::vector<ScheduledKernel> emitted;
  size_t next = 0;
  for (Operation &op : func.getBody().front()) {
    std::optional<unsigned> count = countKernels(op);
    if (auto attention = dyn_cast<AttentionOp>(op); attention && !count)
      return op.emitOpError()
             << "has no fused attention kernel ("
             << checkAttentionKernel(attention)
             << "): decompose it first (tfuse-decompose-attention)";
    if (auto grad = dyn_cast<AttentionGradOp>(op); grad && !count)
      return op.emitOpError() << "has no fused attention backward kernel ("
                              << checkAttentionGradKernel(grad) << ")";
    if (auto cost = dyn_cast<CostOpInterface>(op);
        cost && cost.getOpClass() == OpClass::Collective)
      return op.emitOpError()
             << "collectives are not emitted yet; see docs/multi-gpu.md";
    if (!count)
      return op.emitOpError() << "has no GPU code generation yet";
    for (unsigned piece = 0; piece < *count; ++piece, ++next) {
      if (next >= schedule.size() || schedule[next].op != &op)
        return op.emitOpError()
               << "internal error: code generation and the kernel schedule "
                  "(lib/Analysis/KernelCost.cpp) disagree at kernel "
               << next;
      ScheduledKernel kernel{schedule[next], std::nullopt};
      if (kernel.cost.templateName != "gemm") {
        FailureOr<EmittedKernel> launch =
            llvm::TypeSwitch<Operation *, FailureOr<EmittedKernel>>(&op)
                .Case([&](FusionOp fusion) {
                  return emitFusionKernel(kernels, fusion, kernel.cost.id);
                })
                .Case([&](AttentionOp attention) {
                  return emitAttentionKernel(kernels, attention,
                                             kernel.cost.id);
                })
                .Case([&](AttentionGradOp grad) {
                  return emitAttentionGradKernel(kernels, grad, piece,
                                                 kernel.cost.id);
                })
                .Case([&](GatherOp gather) {
                  return emitGatherKernel(kernels, gather, kernel.cost.id);
                })
                .Case([&](GatherGradOp grad) {
                  return emitGatherGradKernel(kernels, grad, piece,
                                              kernel.cost.id);
                })
                .Case([&](ConcatOp concat) {
                  return emitConcatKernel(kernels, concat, kernel.cost.id);
                })
                .Case([&](RopeOp rope) {
                  return emitRopeKernel(kernels, rope, kernel.cost.id);
                })
                .Default([&](Operation *layout) {
                  return emitLayoutPiece(kernels, layout, piece,
                                         kernel.cost.id);
                });
        if (failed(launch))
          return failure();
        // ptxas then budgets registers for the block the plan launches, so
        // that no kernel needs more registers than that block can have.
        const std::array<int64_t, 3> &block = launch->block;
        kernels.lookupSymbol(launch->name)
            ->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                      DenseI32ArrayAttr::get(func.getContext(),
                                             {static_cast<int32_t>(block[0]),
                                              static_cast<int32_t>(block[1]),
                                              static_cast<int32_t>(block[2])}));
        kernel.launch = std::move(*launch);
      }
      emitted.push_back(std::move(kernel));
    }
  }
  return emitted;
}
