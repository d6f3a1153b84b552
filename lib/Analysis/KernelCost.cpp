//===- KernelCost.cpp - the kernels a function compiles to, priced --------===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Follows the plan builder's walk (lib/Conversion/TFuseToGPU/PlanBuilder.cpp)
// op by op; the lit tests compare this file's prices with plan.json's.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/KernelCost.h"
#include "tfuse/Reference/Philox.h"
#include "tfuse/Target/KernelShapes.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tfuse;

bool mlir::tfuse::isSplatConstant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  auto dense = constant ? dyn_cast<DenseElementsAttr>(constant.getValue())
                        : DenseElementsAttr();
  return dense && dense.isSplat();
}

KernelWork KernelCost::workOn(const GpuTarget &target) const {
  KernelWork work;
  work.flops = flops;
  work.integerOps = integerOps;
  work.computeClass = computeClass;
  work.unalignedGemm = unalignedGemm;
  work.flashAttention =
      templateName == "attention" || templateName == "attention_grad";
  work.l2Bytes = fitsInL2(producerBytesWritten, target) ? l2CandidateBytes : 0;
  if (rereadBytes > 0 && rows > 0 && rowThreads > 0) {
    // A looping row kernel reads its rows again; the rows in flight (every
    // SM full of its blocks, at most) stay in L2 when they fit there.
    int64_t blocksPerSm =
        std::max<int64_t>(1, target.maxThreadsPerSm / rowThreads);
    int64_t inFlight = std::min<int64_t>(rows, target.smCount * blocksPerSm);
    if (fitsInL2(inFlight * (rereadBytes / rows), target))
      work.l2Bytes = std::min(work.l2Bytes + rereadBytes, bytesRead);
  } else if (rereadFootprint > 0 && fitsInL2(rereadFootprint, target)) {
    // Flash attention reads K and V again per query tile: from L2 when one
    // kv head's worth fits there.
    work.l2Bytes += rereadBytes;
  }
  work.dramBytes = bytes() - work.l2Bytes;
  return work;
}

namespace {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

/// A library GEMM's compute class and alignment.
void setGemm(KernelCost &kernel, MatmulOp matmul) {
  kernel.computeClass = getContractionClass(matmul);
  kernel.unalignedGemm = !isAlignedGemm(matmul);
}

/// The row op of a row_reduction kernel's members.
Operation *findRowOp(ArrayRef<Operation *> members) {
  for (Operation *op : members)
    if (isRowOp(op))
      return op;
  return nullptr;
}

/// The Philox calls of an elementwise dropout: one per four elements when
/// the kernel's lanes come in fours along the last axis (evaluateLanes),
/// one per element otherwise.
int64_t getDropoutPhiloxCalls(DropoutOp op) {
  auto type = cast<RankedTensorType>(op.getResult().getType());
  int64_t elements = type.getNumElements();
  constexpr int64_t words = ref::philox::kWordsPerCall;
  bool fours = !type.getShape().empty() && type.getShape().back() % words == 0;
  return fours ? llvm::divideCeil(elements, words) : elements;
}

/// `kernel` with these counts, or marked unsupported when one of them (or
/// the bytes in all) overflowed int64.
KernelCost withCheckedCounts(KernelCost kernel, CheckedInt bytesRead,
                             CheckedInt bytesWritten, CheckedInt flops,
                             CheckedInt integerOps) {
  if (!(bytesRead + bytesWritten).valid() || !flops.valid() ||
      !integerOps.valid()) {
    kernel.unsupported = "its byte, FLOP or integer-op counts overflow int64";
    return kernel;
  }
  kernel.bytesRead = *bytesRead.get();
  kernel.bytesWritten = *bytesWritten.get();
  kernel.flops = *flops.get();
  kernel.integerOps = *integerOps.get();
  return kernel;
}

/// A kernel reading `inputs` and writing `outputs`, with the FLOPs of
/// `members`.
KernelCost streamingKernel(StringRef templateName, ArrayRef<Value> inputs,
                           ArrayRef<Value> outputs,
                           ArrayRef<Operation *> members) {
  KernelCost kernel;
  kernel.templateName = templateName.str();
  CheckedInt bytesRead = 0, bytesWritten = 0, flops = 0, integerOps = 0;
  for (Value input : inputs)
    bytesRead += getCheckedTensorBytes(input);
  for (Value output : outputs)
    bytesWritten += getCheckedTensorBytes(output);
  for (Operation *op : members) {
    if (auto cost = dyn_cast<CostOpInterface>(op))
      flops += cost.computeFlops();
    if (auto dropout = dyn_cast<DropoutOp>(op))
      integerOps += CheckedInt(getDropoutPhiloxCalls(dropout)) *
                    kElementwisePhiloxCallOps;
  }
  // Each op fits (its verifier checked); a merged group may not.
  return withCheckedCounts(std::move(kernel), bytesRead, bytesWritten, flops,
                           integerOps);
}

int64_t numElementsOf(Value value) {
  return cast<ShapedType>(value.getType()).getNumElements();
}

/// An op priced by its own traffic (CostOpInterface), for ops without a
/// kernel of their own.
KernelCost opOwnTraffic(Operation *op) {
  auto cost = cast<CostOpInterface>(op);
  KernelCost kernel;
  kernel.templateName = op->getName().getStringRef().str();
  kernel.bytesRead = cost.getBytesRead();
  kernel.bytesWritten = cost.getBytesWritten();
  kernel.flops = cost.getFlops();
  if (cost.getOpClass() == OpClass::Contraction)
    kernel.computeClass = getContractionClass(op);
  return kernel;
}

/// The emitter's rules for a kernel of `kind` over `members`, which loads
/// and stores `buffers` (as the emitter sees them: a region's arguments and
/// yields). Sets why it cannot be emitted, or, for a looping row kernel, the
/// bytes of its second pass: the kernel inputs the row op's input is
/// computed from, read again. `inputOf` maps a value the members read to
/// the kernel input it is.
void describeEmission(KernelCost &kernel, FusionKind kind,
                      ArrayRef<Operation *> members, ArrayRef<Value> buffers,
                      function_ref<Value(Value)> inputOf) {
  if (kind != FusionKind::row_reduction)
    return;
  Operation *rowOp = findRowOp(members);
  if (!rowOp) {
    kernel.unsupported = "a row_reduction kernel needs a row op";
    return;
  }
  kernel.unsupported = checkRowKernel(rowOp, members, buffers);
  std::optional<RowKernelShape> shape = getRowKernelShape(rowOp, buffers);
  if (!kernel.unsupported.empty() || !shape ||
      shape->passes(!writesPerRowValues(rowOp)) < 2)
    return;
  llvm::SmallPtrSet<Operation *, 8> inside(members.begin(), members.end());
  llvm::SetVector<Value> reread;
  // tfuse.norm_grad reads x and dy in each of its three passes.
  SmallVector<Value> pending = {rowOp->getOperand(0)};
  int64_t extraPasses = 1;
  if (isa<NormGradOp>(rowOp)) {
    pending.push_back(rowOp->getOperand(1));
    extraPasses = 2;
  }
  while (!pending.empty()) {
    Value value = pending.pop_back_val();
    Operation *def = value.getDefiningOp();
    if (def && inside.count(def)) {
      pending.append(def->operand_begin(), def->operand_end());
      continue;
    }
    if (!isSplatConstant(value))
      reread.insert(inputOf(value));
  }
  for (Value input : reread)
    kernel.rereadBytes += extraPasses * getTensorBytes(input);
  kernel.bytesRead += kernel.rereadBytes;
  kernel.rows = numElementsOf(rowOp->getOperand(0)) /
                std::max<int64_t>(1, getRowLength(rowOp));
  kernel.rowThreads = shape->threads;
}

/// The distinct values `members` read from outside, splat constants left out
/// (the kernel rebuilds them), and the values used outside them.
void collectBoundary(ArrayRef<Operation *> members,
                     llvm::SetVector<Value> &inputs,
                     SmallVectorImpl<Value> &outputs) {
  llvm::SmallPtrSet<Operation *, 8> inside(members.begin(), members.end());
  for (Operation *op : members) {
    for (Value operand : op->getOperands())
      if (!inside.count(operand.getDefiningOp()) && !isSplatConstant(operand))
        inputs.insert(operand);
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !inside.count(user); }))
        outputs.push_back(result);
  }
}

} // namespace

ComputeClass mlir::tfuse::getContractionClass(Operation *contraction) {
  Type element = getElementTypeOrSelf(contraction->getOperand(0).getType());
  if (element.isBF16())
    return ComputeClass::Bf16Tensor;
  if (element.isF16())
    return ComputeClass::Fp16Tensor;
  if (auto matmul = dyn_cast<MatmulOp>(contraction); matmul && matmul.getTf32())
    return ComputeClass::Tf32Tensor;
  return ComputeClass::Fp32Simt;
}

bool mlir::tfuse::isAlignedGemm(MatmulOp matmul) {
  auto rowBytesAligned = [](Value value) {
    auto type = cast<ShapedType>(value.getType());
    int64_t bits = type.getElementTypeBitWidth();
    return type.getRank() == 0 || (type.getShape().back() * bits) % 128 == 0;
  };
  return rowBytesAligned(matmul.getLhs()) && rowBytesAligned(matmul.getRhs()) &&
         rowBytesAligned(matmul.getResult());
}

bool mlir::tfuse::isRowOp(Operation *op) {
  return isa<SoftmaxOp, ReduceOp, LayerNormOp, RmsNormOp, NormGradOp,
             CrossEntropyOp, CrossEntropyGradOp>(op);
}

bool mlir::tfuse::writesPerRowValues(Operation *rowOp) {
  return isa<ReduceOp, CrossEntropyOp>(rowOp);
}

int64_t mlir::tfuse::getRowAxis(Operation *rowOp) {
  int64_t rank = cast<ShapedType>(rowOp->getOperand(0).getType()).getRank();
  if (auto softmax = dyn_cast<SoftmaxOp>(rowOp))
    return softmax.getAxis();
  if (auto reduce = dyn_cast<ReduceOp>(rowOp))
    return reduce.getAxis();
  return rank - 1;
}

int64_t mlir::tfuse::getRowLength(Operation *rowOp) {
  ArrayRef<int64_t> rowShape = shapeOf(rowOp->getOperand(0));
  return rowShape.empty() ? 1 : rowShape[getRowAxis(rowOp)];
}

int64_t mlir::tfuse::getRowStride(Operation *rowOp) {
  ArrayRef<int64_t> rowShape = shapeOf(rowOp->getOperand(0));
  if (rowShape.empty())
    return 1;
  return ShapedType::getNumElements(rowShape.drop_front(getRowAxis(rowOp) + 1));
}

/// Why a kernel of `members` around a row op writing per-row values
/// (reduce, cross_entropy) cannot be emitted, or "": its thread 0 writes
/// the row's values, so every other member must be a producer of the row
/// that nothing outside the kernel reads.
static std::string checkPerRowKernel(Operation *rowOp,
                                     ArrayRef<Operation *> members) {
  llvm::SmallPtrSet<Operation *, 8> inside(members.begin(), members.end());
  llvm::SmallPtrSet<Operation *, 8> producers;
  std::string rowName = rowOp->getName().getStringRef().str();
  SmallVector<Value> pending = {rowOp->getOperand(0)};
  while (!pending.empty()) {
    Operation *def = pending.pop_back_val().getDefiningOp();
    if (def && inside.count(def) && producers.insert(def).second)
      pending.append(def->operand_begin(), def->operand_end());
  }
  for (Operation *op : members) {
    if (op == rowOp)
      continue;
    std::string name = op->getName().getStringRef().str();
    if (!producers.count(op))
      return "row kernels support no epilogue after " + rowName + " (" + name +
             " reads its per-row value)";
    for (Operation *user : op->getUsers())
      if (!inside.count(user))
        return "a " + rowName + " kernel writes only its per-row values, and " +
               name + "'s result is also read outside the kernel";
  }
  return "";
}

std::string mlir::tfuse::checkRowKernel(Operation *rowOp,
                                        ArrayRef<Operation *> members,
                                        ArrayRef<Value> rowBuffers) {
  if (!getRowKernelShape(rowOp, rowBuffers))
    return "row kernels need a non-empty row";
  if (writesPerRowValues(rowOp))
    return checkPerRowKernel(rowOp, members);
  // The loss's labels and loss gradient are read once per row, from memory.
  if (isa<CrossEntropyGradOp>(rowOp))
    for (Value perRow : rowOp->getOperands().drop_front())
      if (Operation *def = perRow.getDefiningOp();
          def && llvm::is_contained(members, def))
        return "tfuse.cross_entropy_grad reads its per-row operands from "
               "memory, and " +
               def->getName().getStringRef().str() +
               " computes one in the kernel";
  // The other row kernels store each output as the row op's input is laid
  // out, lane by lane.
  llvm::SmallPtrSet<Operation *, 8> inside(members.begin(), members.end());
  ArrayRef<int64_t> rowShape =
      cast<ShapedType>(rowOp->getOperand(0).getType()).getShape();
  // tfuse.norm_grad's per-row mean and rstd are stored once per row.
  auto perRow = [&](Value result) {
    return isa<NormGradOp>(rowOp) && result.getDefiningOp() == rowOp &&
           result != rowOp->getResult(0);
  };
  for (Operation *op : members)
    for (Value result : op->getResults())
      if (!perRow(result) &&
          cast<ShapedType>(result.getType()).getShape() != rowShape &&
          llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !inside.count(user); }))
        return "row kernels store results of the row's shape only, and " +
               op->getName().getStringRef().str() +
               "'s result, of another shape, is also read outside the kernel";
  return "";
}

std::optional<RowKernelShape>
mlir::tfuse::getRowKernelShape(Operation *rowOp, ArrayRef<Value> rowBuffers) {
  ArrayRef<int64_t> rowShape = shapeOf(rowOp->getOperand(0));
  int64_t length = getRowLength(rowOp);
  // A strided row (not along the last axis) is read one element at a time.
  if (getRowStride(rowOp) > 1)
    return getRowKernelShape(length, 1);
  int64_t width = 16;
  for (Value buffer : rowBuffers)
    if (shapeOf(buffer) == rowShape)
      width = std::min(
          width,
          getVectorWidth(
              (getElementTypeOrSelf(buffer.getType()).getIntOrFloatBitWidth() +
               7) /
                  8,
              length));
  return getRowKernelShape(length, width);
}

KernelCost mlir::tfuse::describeFusedKernel(ArrayRef<Operation *> members,
                                            FusionKind kind) {
  llvm::SetVector<Value> inputs;
  SmallVector<Value> outputs;
  collectBoundary(members, inputs, outputs);
  if (kind == FusionKind::gemm_epilogue) {
    KernelCost kernel =
        streamingKernel("gemm", inputs.getArrayRef(), outputs, members);
    for (Operation *op : members)
      if (auto matmul = dyn_cast<MatmulOp>(op))
        setGemm(kernel, matmul);
    return kernel;
  }
  KernelCost kernel = streamingKernel(stringifyFusionKind(kind),
                                      inputs.getArrayRef(), outputs, members);
  SmallVector<Value> buffers(inputs.begin(), inputs.end());
  buffers.append(outputs.begin(), outputs.end());
  if (kernel.emitted())
    describeEmission(kernel, kind, members, buffers,
                     [](Value value) { return value; });
  return kernel;
}

TransposeOp mlir::tfuse::getRopeTranspose(RopeOp rope) {
  auto transpose = rope.getInput().getDefiningOp<TransposeOp>();
  if (!transpose || !transpose->hasOneUse() ||
      transpose->getBlock() != rope->getBlock())
    return {};
  return transpose;
}

bool mlir::tfuse::isAbsorbedByRope(Operation *op) {
  auto transpose = dyn_cast<TransposeOp>(op);
  if (!transpose || !transpose->hasOneUse())
    return false;
  auto rope = dyn_cast<RopeOp>(*transpose->getUsers().begin());
  return rope && getRopeTranspose(rope) == transpose;
}

/// A [B, S, H, D] <-> [B, H, S, D] transpose (the two are the same perm)
/// whose rows stay 16-byte aligned when read in place.
static bool isHeadTranspose(TransposeOp transpose) {
  ArrayRef<int64_t> perm = transpose.getPerm();
  return perm == ArrayRef<int64_t>{0, 2, 1, 3} &&
         transpose.getInput().getType().getDimSize(3) % 8 == 0;
}

/// The (batch, head, row) strides of a [B, H, S, D] tensor stored
/// head-major, or token-major as [B, S, H, D].
static std::array<int64_t, 3> headStrides(ArrayRef<int64_t> shape,
                                          bool tokenMajor) {
  if (shape.size() != 4)
    return {0, 0, 0};
  if (tokenMajor)
    return {shape[1] * shape[2] * shape[3], shape[3], shape[2] * shape[3]};
  return {shape[1] * shape[2] * shape[3], shape[2] * shape[3], shape[3]};
}

/// Whether a flash kernel reads `use` as a query, key, value or output
/// gradient.
static bool isFlashOperand(OpOperand &use) {
  unsigned number = use.getOperandNumber();
  if (auto attention = dyn_cast<AttentionOp>(use.getOwner()))
    return number < 3 && checkAttentionKernel(attention).empty();
  if (auto grad = dyn_cast<AttentionGradOp>(use.getOwner()))
    return number < 4 && checkAttentionGradKernel(grad).empty();
  return false;
}

/// The transpose the flash kernels read `operand` through, or null.
static TransposeOp getAbsorbedInputTranspose(Value operand) {
  auto transpose = operand.getDefiningOp<TransposeOp>();
  if (!transpose || !isHeadTranspose(transpose))
    return {};
  for (OpOperand &use : transpose.getResult().getUses())
    if (use.getOwner()->getBlock() != transpose->getBlock() ||
        !isFlashOperand(use))
      return {};
  return transpose;
}

/// The transpose a flash kernel writes instead of `result`, or null.
static TransposeOp getAbsorbedResultTranspose(Value result) {
  auto opResult = dyn_cast<OpResult>(result);
  if (!opResult || !result.hasOneUse())
    return {};
  Operation *owner = opResult.getOwner();
  bool flash = false;
  if (auto attention = dyn_cast<AttentionOp>(owner))
    flash = result == attention.getResult() &&
            checkAttentionKernel(attention).empty();
  else if (auto grad = dyn_cast<AttentionGradOp>(owner))
    flash = checkAttentionGradKernel(grad).empty();
  auto transpose = dyn_cast<TransposeOp>(*result.getUsers().begin());
  // A transpose the next attention reads through stays that one's.
  if (!flash || !transpose || !isHeadTranspose(transpose) ||
      transpose->getBlock() != owner->getBlock() ||
      getAbsorbedInputTranspose(transpose.getResult()))
    return {};
  return transpose;
}

/// `user` of a split's piece of `width` columns when it is a reshape to
/// [B, S, H, D] that only absorbed transposes read, or null.
static ReshapeOp getAbsorbedPieceReshape(Operation *user, int64_t width) {
  auto reshape = dyn_cast<ReshapeOp>(user);
  if (!reshape)
    return {};
  ArrayRef<int64_t> heads = shapeOf(reshape.getResult());
  if (heads.size() != 4 || heads[2] * heads[3] != width)
    return {};
  for (Operation *reader : reshape.getResult().getUsers()) {
    auto transpose = dyn_cast<TransposeOp>(reader);
    if (!transpose || !getAbsorbedInputTranspose(transpose.getResult()))
      return {};
  }
  return reshape;
}

/// Whether every piece of `split` (along the last axis, 16-byte aligned) is
/// read only through reshapes to [B, S, H, D] that absorbed transposes
/// read: the flash kernels then read the split's input at each piece's
/// offset, and the split launches nothing.
static bool isAbsorbedSplit(SplitOp split) {
  auto input = cast<RankedTensorType>(split.getInput().getType());
  if (input.getRank() < 2 ||
      static_cast<int64_t>(split.getAxis()) != input.getRank() - 1 ||
      input.getShape().back() % 8 != 0)
    return false;
  for (Value piece : split.getResults()) {
    int64_t width = cast<RankedTensorType>(piece.getType()).getShape().back();
    if (width % 8 != 0 || piece.use_empty())
      return false;
    for (Operation *user : piece.getUsers())
      if (!getAbsorbedPieceReshape(user, width))
        return false;
  }
  return true;
}

/// Where the token-major [B, S, H, D] `input` of an absorbed transpose is
/// stored: in place, or at its piece's offset of an absorbed split's input
/// (rows of the split input's width).
static HeadLayout getTokenMajorLayout(Value input) {
  ArrayRef<int64_t> shape = shapeOf(input);
  HeadLayout layout{input, headStrides(shape, true), 0};
  auto reshape = input.getDefiningOp<ReshapeOp>();
  auto split =
      reshape ? reshape.getInput().getDefiningOp<SplitOp>() : SplitOp();
  if (!split || !isAbsorbedSplit(split))
    return layout;
  int64_t width = shapeOf(split.getInput()).back();
  unsigned piece = cast<OpResult>(reshape.getInput()).getResultNumber();
  for (unsigned i = 0; i < piece; ++i)
    layout.offset += shapeOf(split.getResult(i)).back();
  layout.buffer = split.getInput();
  layout.strides = {shape[1] * width, shape[3], width};
  return layout;
}

HeadLayout mlir::tfuse::getAttentionOperandLayout(Value operand) {
  if (TransposeOp transpose = getAbsorbedInputTranspose(operand))
    return getTokenMajorLayout(transpose.getInput());
  return {operand, headStrides(shapeOf(operand), false), 0};
}

HeadLayout mlir::tfuse::getAttentionResultLayout(Value result) {
  if (TransposeOp transpose = getAbsorbedResultTranspose(result))
    return {transpose.getResult(),
            headStrides(transpose.getResult().getType().getShape(), true), 0};
  return {result, headStrides(shapeOf(result), false), 0};
}

bool mlir::tfuse::isAbsorbedByAttention(Operation *op) {
  if (auto split = dyn_cast<SplitOp>(op))
    return isAbsorbedSplit(split);
  auto transpose = dyn_cast<TransposeOp>(op);
  return transpose && (getAbsorbedInputTranspose(transpose.getResult()) ||
                       getAbsorbedResultTranspose(transpose.getInput()));
}

/// The kernels of one top-level op, named with the plan builder's counters.
OptimizerGroup mlir::tfuse::findOptimizerGroup(Block &block) {
  OptimizerGroup group;
  for (Operation &op : block)
    if (isa<AdamWOp, SgdOp>(op))
      group.updates.push_back(&op);
  if (group.updates.empty())
    return group;
  llvm::SmallPtrSet<Operation *, 16> members(group.updates.begin(),
                                             group.updates.end());
  Operation *last = group.updates.back();
  for (Operation *update : group.updates) {
    for (Value operand : update->getOperands())
      if (Operation *def = operand.getDefiningOp(); def && members.count(def)) {
        group.problem = "reads the result of another optimizer update; the "
                        "multi-tensor kernel runs independent updates";
        group.at = update;
        return group;
      }
    for (Value result : update->getResults())
      for (Operation *user : result.getUsers())
        if (user->isBeforeInBlock(last)) {
          group.problem = "has a result used before the last optimizer "
                          "update of the function; the multi-tensor kernel "
                          "runs them all at once";
          group.at = update;
          return group;
        }
  }
  // Each launch takes every distinct operand and result once, as a pointer.
  llvm::DenseSet<Value> buffers;
  for (Operation *update : group.updates) {
    int64_t added = 0;
    for (Value value :
         llvm::concat<Value>(update->getOperands(), update->getResults()))
      added += !buffers.contains(value);
    if (group.launches.empty() ||
        8 * static_cast<int64_t>(buffers.size() + added) >
            kMultiTensorParamBytes) {
      group.launches.emplace_back();
      buffers.clear();
    }
    group.launches.back().push_back(update);
    buffers.insert(update->operand_begin(), update->operand_end());
    buffers.insert(update->result_begin(), update->result_end());
  }
  return group;
}

static void scheduleOp(Operation &op, const OptimizerGroup &optimizer,
                       std::vector<KernelCost> &kernels, unsigned &steps,
                       unsigned &emitted) {
  auto add = [&](KernelCost kernel, Operation *source) {
    kernel.op = source;
    if (kernel.templateName == "gemm")
      kernel.id = "gemm_" + std::to_string(steps);
    else if (kernel.emitted())
      kernel.id = kernel.templateName + "_" + std::to_string(emitted++);
    if (kernel.emitted())
      ++steps;
    kernels.push_back(std::move(kernel));
  };
  auto cost = dyn_cast<CostOpInterface>(&op);
  if (!cost)
    return;
  OpClass opClass = cost.getOpClass();
  if (opClass == OpClass::View || opClass == OpClass::Constant)
    return;
  // Standalone optimizer updates are the multi_tensor kernels tfuse-compile
  // groups them into, placed at the last of them.
  if (isa<AdamWOp, SgdOp>(op)) {
    if (optimizer.problem.empty()) {
      if (&op == optimizer.updates.back())
        for (ArrayRef<Operation *> launch : optimizer.launches)
          add(describeFusedKernel(launch, FusionKind::multi_tensor), &op);
      return;
    }
    // tfuse-compile refuses the function (at optimizer.at); the report says
    // why and prices each update alone.
    KernelCost kernel = describeSingleKernel(&op);
    kernel.unsupported = "priced alone: " + optimizer.problem;
    add(std::move(kernel), &op);
    return;
  }
  if (auto fusion = dyn_cast<FusionOp>(&op)) {
    SmallVector<Operation *> members;
    for (Operation &member : fusion.getBody().front().without_terminator())
      members.push_back(&member);
    KernelCost kernel;
    if (fusion.getKind() == FusionKind::gemm_epilogue) {
      SmallVector<Value> inputs(fusion.getInputs()),
          outputs(fusion.getResults());
      kernel = streamingKernel("gemm", inputs, outputs, members);
      for (Operation *member : members)
        if (auto matmul = dyn_cast<MatmulOp>(member))
          setGemm(kernel, matmul);
    } else {
      SmallVector<Value> inputs;
      for (Value input : fusion.getInputs())
        if (!llvm::is_contained(inputs, input))
          inputs.push_back(input);
      SmallVector<Value> outputs(fusion.getResults());
      kernel = streamingKernel(stringifyFusionKind(fusion.getKind()), inputs,
                               outputs, members);
      // The emitter sees the region's arguments; their shapes are the
      // inputs'.
      Block &body = fusion.getBody().front();
      SmallVector<Value> regionBuffers(body.getArguments());
      regionBuffers.append(body.getTerminator()->operand_begin(),
                           body.getTerminator()->operand_end());
      if (kernel.emitted())
        describeEmission(kernel, fusion.getKind(), members, regionBuffers,
                         [&](Value value) -> Value {
                           auto arg = dyn_cast<BlockArgument>(value);
                           return arg ? fusion.getInputs()[arg.getArgNumber()]
                                      : value;
                         });
    }
    add(std::move(kernel), &op);
    return;
  }
  if (auto grad = dyn_cast<AttentionGradOp>(&op);
      grad && checkAttentionGradKernel(grad).empty()) {
    // The query kernel (dQ), then the key kernel (dK, dV).
    for (unsigned piece = 0; piece < 2; ++piece)
      add(describeAttentionGradKernel(grad, piece), &op);
    return;
  }
  // The flash kernels read a fused QKV projection's pieces in place.
  if (isa<SplitOp>(op) && isAbsorbedByAttention(&op))
    return;
  if (auto split = dyn_cast<SplitOp>(&op)) {
    // One copy kernel per piece, each reading and writing its own box.
    for (auto [index, result] : llvm::enumerate(split.getResults())) {
      KernelCost piece;
      piece.templateName = "copy";
      piece.piece = index;
      piece.bytesRead = piece.bytesWritten = getTensorBytes(result);
      add(std::move(piece), &op);
    }
    return;
  }
  if (auto grad = dyn_cast<GatherGradOp>(&op)) {
    for (unsigned piece = 0; piece < getGatherGradKernelCount(grad); ++piece)
      add(describeGatherGradKernel(grad, piece), &op);
    return;
  }
  // A transpose a rope or an attention kernel absorbs launches nothing. A
  // rope is the copy kernel of the transpose it absorbs (or a copy of its
  // own): it reads what it writes, and the frequencies.
  if (isAbsorbedByRope(&op) || isAbsorbedByAttention(&op))
    return;
  if (auto rope = dyn_cast<RopeOp>(&op)) {
    KernelCost copy;
    copy.templateName = "copy";
    copy.bytesRead =
        getTensorBytes(rope.getInput()) + getTensorBytes(rope.getInvFreq());
    copy.bytesWritten = getTensorBytes(rope.getResult());
    copy.flops = cost.getFlops();
    add(std::move(copy), &op);
    return;
  }
  // A copy kernel reads what it writes (concat: every input once); a gather
  // reads the indices and the rows they select (the op's own traffic).
  if (isa<TransposeOp, SliceOp, ConcatOp, GatherOp>(op)) {
    KernelCost copy;
    copy.templateName = isa<GatherOp>(op) ? "gather" : "copy";
    copy.bytesRead = cost.getBytesRead();
    copy.bytesWritten = cost.getBytesWritten();
    add(std::move(copy), &op);
    return;
  }
  add(describeSingleKernel(&op), &op);
}

KernelCost mlir::tfuse::describeSingleKernel(Operation *op) {
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    SmallVector<Value> inputs(op->getOperands()), outputs(op->getResults());
    KernelCost kernel = streamingKernel("gemm", inputs, outputs, {op});
    setGemm(kernel, matmul);
    return kernel;
  }
  auto cost = cast<CostOpInterface>(op);
  if (cost.getOpClass() == OpClass::Elementwise ||
      cost.getOpClass() == OpClass::Reduction) {
    // The plan builder wraps the op into a one-op fusion.
    FusionKind kind = cost.getOpClass() == OpClass::Reduction
                          ? FusionKind::row_reduction
                          : FusionKind::loop;
    SmallVector<Value> inputs;
    for (Value operand : op->getOperands())
      if (!isSplatConstant(operand) && !llvm::is_contained(inputs, operand))
        inputs.push_back(operand);
    SmallVector<Value> outputs(op->getResults());
    KernelCost kernel =
        streamingKernel(stringifyFusionKind(kind), inputs, outputs, {op});
    SmallVector<Value> buffers(inputs);
    buffers.append(outputs.begin(), outputs.end());
    if (kernel.emitted())
      describeEmission(kernel, kind, {op}, buffers,
                       [](Value value) { return value; });
    return kernel;
  }
  if (auto attention = dyn_cast<AttentionOp>(op)) {
    std::string reason = checkAttentionKernel(attention);
    if (reason.empty())
      return describeAttentionKernel(attention);
    KernelCost kernel = opOwnTraffic(op);
    kernel.unsupported = "no fused attention kernel (" + reason +
                         "): tfuse-compile decomposes it "
                         "(tfuse-decompose-attention)";
    return kernel;
  }
  // Alone, the sum of its kernels (the planner never fuses it).
  if (auto grad = dyn_cast<GatherGradOp>(op)) {
    KernelCost kernel = describeGatherGradKernel(grad, 0);
    for (unsigned piece = 1; piece < getGatherGradKernelCount(grad); ++piece) {
      KernelCost next = describeGatherGradKernel(grad, piece);
      kernel.bytesRead += next.bytesRead;
      kernel.bytesWritten += next.bytesWritten;
      kernel.flops += next.flops;
    }
    return kernel;
  }
  if (auto grad = dyn_cast<AttentionGradOp>(op)) {
    KernelCost kernel = opOwnTraffic(op);
    kernel.unsupported = "no fused attention backward kernel (" +
                         checkAttentionGradKernel(grad) + ")";
    return kernel;
  }
  // Optimizer updates run together, as one multi_tensor kernel that
  // tfuse-compile forms; alone, each is priced by its own traffic.
  if (cast<CostOpInterface>(op).getOpClass() == OpClass::Optimizer) {
    KernelCost kernel = opOwnTraffic(op);
    kernel.unsupported = "priced alone; tfuse-compile runs the function's "
                         "updates as one multi_tensor kernel";
    return kernel;
  }
  // A collective's device-memory traffic is its own (NCCL reads the input
  // and writes the result); the traffic analysis prices its communication.
  if (cast<CostOpInterface>(op).getOpClass() == OpClass::Collective) {
    KernelCost kernel = opOwnTraffic(op);
    kernel.unsupported =
        "collectives are not emitted yet; see docs/multi-gpu.md";
    return kernel;
  }
  // Ops without an emitter: priced as the op's own traffic, and marked.
  KernelCost kernel = opOwnTraffic(op);
  kernel.unsupported = "no emitter for " + op->getName().getStringRef().str();
  return kernel;
}

/// What the flash-attention templates (forward and backward) cover: tensor
/// cores, head dims they keep in registers, a grid they can launch.
static std::string checkFlashAttention(Value query, Value key, Value value) {
  ArrayRef<int64_t> q = cast<ShapedType>(query.getType()).getShape();
  ArrayRef<int64_t> k = cast<ShapedType>(key.getType()).getShape();
  ArrayRef<int64_t> v = cast<ShapedType>(value.getType()).getShape();
  Type element = getElementTypeOrSelf(query.getType());
  if (!element.isBF16() && !element.isF16())
    return "the fused kernel runs on tensor cores: bf16 or f16 only";
  if (!isAttentionHeadDim(q[3]) || !isAttentionHeadDim(v[3]))
    return "head dims must be multiples of 16 up to 128, got " +
           std::to_string(q[3]) + " and " + std::to_string(v[3]);
  if (q[2] < 1 || k[2] < 1 || q[0] * q[1] < 1)
    return "empty sequences have no kernel";
  // The grids' y is (batch, head) pairs, at most 65535.
  if (q[0] * q[1] > 65535)
    return "more than 65535 (batch, head) pairs";
  return "";
}

int64_t mlir::tfuse::getAttentionDropoutCalls(int64_t scores, int64_t keySeq,
                                              bool keyMajor) {
  constexpr int64_t words = ref::philox::kWordsPerCall;
  if (keySeq % words == 0)
    return llvm::divideCeil(scores, words);
  if (keyMajor || keySeq % 2 != 0)
    return scores;
  return llvm::divideCeil(scores, 2);
}

std::string mlir::tfuse::checkAttentionKernel(AttentionOp op) {
  return checkFlashAttention(op.getQuery(), op.getKey(), op.getValue());
}

/// `kernel` with its reads (`bytesRead` plus the re-reads, when positive)
/// and counts, checked: each op's own counts fit, as its verifier checked;
/// the kernels' re-reads, recomputed products and Philox draws may not.
static KernelCost withAttentionCounts(KernelCost kernel, CheckedInt bytesRead,
                                      CheckedInt rereadBytes, CheckedInt flops,
                                      CheckedInt integerOps) {
  if (rereadBytes.valid() && *rereadBytes.get() < 0)
    rereadBytes = 0;
  int64_t written = kernel.bytesWritten;
  kernel = withCheckedCounts(std::move(kernel), bytesRead + rereadBytes,
                             written, flops, integerOps);
  if (kernel.emitted())
    kernel.rereadBytes = *rereadBytes.get();
  return kernel;
}

KernelCost mlir::tfuse::describeAttentionKernel(AttentionOp op) {
  ArrayRef<int64_t> q = op.getQuery().getType().getShape();
  ArrayRef<int64_t> k = op.getKey().getType().getShape();
  ArrayRef<int64_t> v = op.getValue().getType().getShape();
  int64_t pairs = q[0] * q[1], querySeq = q[2], keySeq = k[2];
  int64_t elementBytes = getTensorBytes(op.getQuery()) /
                         std::max<int64_t>(1, numElementsOf(op.getQuery()));
  int64_t queryTile = getAttentionKernelShape(q[3], v[3]).queryTile();
  int64_t queryTiles = llvm::divideCeil(querySeq, queryTile);
  // Every query tile reads the keys it visits (all of them, or with causal
  // those of the tiles up to its diagonal, as the kernel's loop bound is) and
  // computes their scores for its rows.
  CheckedInt scores = 0, keysRead = 0;
  for (int64_t tile = 0; tile < queryTiles; ++tile) {
    int64_t rows = std::min(queryTile, querySeq - tile * queryTile);
    int64_t keys = keySeq;
    if (op.getCausal())
      keys = std::min(keySeq, (tile + 1) * queryTile);
    scores += CheckedInt(rows) * keys;
    keysRead += keys;
  }
  scores *= pairs;
  KernelCost kernel;
  kernel.templateName = "attention";
  kernel.computeClass = getContractionClass(op);
  CheckedInt flops = 2 * scores * (q[3] + v[3]) + 5 * scores;
  // The first read of each key/value head is the tensors' own bytes; every
  // other query tile (and query head of a group) reads it again.
  int64_t keyValue =
      getTensorBytes(op.getKey()) + getTensorBytes(op.getValue());
  CheckedInt keyValueReads = keysRead * pairs * (k[3] + v[3]) * elementBytes;
  CheckedInt rereadBytes = keyValueReads - keyValue;
  // A mask is read once per score it applies to: a broadcast one mostly
  // from cache, priced at its own size.
  CheckedInt bytesRead = CheckedInt(getTensorBytes(op.getQuery())) + keyValue +
                         (op.getMask() ? getTensorBytes(op.getMask()) : 0);
  CheckedInt integerOps = 0;
  if (op.getDropoutP() && scores.valid())
    integerOps = CheckedInt(getAttentionDropoutCalls(*scores.get(), keySeq,
                                                     /*keyMajor=*/false)) *
                 kAttentionPhiloxCallOps;
  kernel.bytesWritten = getTensorBytes(op.getResult()) +
                        (op.getLse() ? getTensorBytes(op.getLse()) : 0);
  kernel.rereadFootprint = keySeq * (k[3] + v[3]) * elementBytes;
  return withAttentionCounts(kernel, bytesRead, rereadBytes, flops, integerOps);
}

std::string mlir::tfuse::checkAttentionGradKernel(AttentionGradOp op) {
  return checkFlashAttention(op.getQuery(), op.getKey(), op.getValue());
}

unsigned mlir::tfuse::getGatherGradKernelCount(GatherGradOp op) {
  return op.getResult().getType().getElementType().isF32() ? 2 : 3;
}

KernelCost mlir::tfuse::describeGatherGradKernel(GatherGradOp op,
                                                 unsigned piece) {
  // The accumulator is f32 whatever the table's element type.
  int64_t accumulator = numElementsOf(op.getResult()) * 4;
  KernelCost kernel;
  kernel.templateName = "gather_grad";
  kernel.piece = piece;
  if (piece == 0) {
    kernel.bytesWritten = accumulator;
  } else if (piece == 1) {
    // Each element of grad read once and added (an f32 read-modify-write
    // in L2) into the row its index selects; each thread reads its index.
    kernel.bytesRead =
        getTensorBytes(op.getGrad()) + getTensorBytes(op.getIndices());
    kernel.bytesWritten = numElementsOf(op.getGrad()) * 4;
    kernel.flops = numElementsOf(op.getGrad());
  } else {
    kernel.bytesRead = accumulator;
    kernel.bytesWritten = getTensorBytes(op.getResult());
  }
  return kernel;
}

KernelCost mlir::tfuse::describeAttentionGradKernel(AttentionGradOp op,
                                                    unsigned piece) {
  ArrayRef<int64_t> q = op.getQuery().getType().getShape();
  ArrayRef<int64_t> k = op.getKey().getType().getShape();
  ArrayRef<int64_t> v = op.getValue().getType().getShape();
  int64_t heads = q[1], group = q[1] / k[1], querySeq = q[2], keySeq = k[2];
  int64_t elementBytes = getTensorBytes(op.getQuery()) /
                         std::max<int64_t>(1, numElementsOf(op.getQuery()));
  AttentionGradKernelShape shape =
      getAttentionGradKernelShape(q[3], v[3], elementBytes);
  int64_t block = shape.rowsPerBlock();
  int64_t queryRows =
      getTensorBytes(op.getQuery()) + getTensorBytes(op.getOutGrad()) +
      getTensorBytes(op.getLse()) + getTensorBytes(op.getDelta());
  int64_t keyRows = getTensorBytes(op.getKey()) + getTensorBytes(op.getValue());
  KernelCost kernel;
  kernel.templateName = "attention_grad";
  kernel.piece = piece;
  kernel.computeClass = getContractionClass(op);
  // The scores each kernel visits: the query kernel's loop bound is the key
  // tiles up to its rows' diagonal, the key kernel's the query tiles from
  // its first key on (causal); both cover every score otherwise.
  CheckedInt scores = 0, streamed = 0, rereadBytes = 0, flops = 0;
  if (piece == 0) {
    for (int64_t first = 0; first < querySeq; first += block) {
      int64_t rows = std::min(block, querySeq - first);
      int64_t keys = op.getCausal() ? std::min(keySeq, first + block) : keySeq;
      scores += CheckedInt(rows) * keys;
      streamed += keys;
    }
    scores *= q[0] * heads;
    // K and V once per query tile of every query head, the first read
    // being the tensors' own bytes.
    CheckedInt reads = streamed * (q[0] * heads) * (k[3] + v[3]) * elementBytes;
    rereadBytes = reads - keyRows;
    kernel.rereadFootprint = keySeq * (k[3] + v[3]) * elementBytes;
    flops = scores * (4 * q[3] + 2 * v[3] + 6);
    kernel.bytesWritten = getTensorBytes(op.getQueryGrad());
  } else {
    int64_t tile = shape.queryTile;
    for (int64_t first = 0; first < keySeq; first += block) {
      int64_t keys = std::min(block, keySeq - first);
      int64_t rows = querySeq;
      if (op.getCausal())
        rows = std::max<int64_t>(0, querySeq - (first / tile) * tile);
      scores += CheckedInt(keys) * rows;
      streamed += rows;
    }
    scores *= q[0] * heads;
    // Q, dO and the row statistics once per key block, for every query
    // head of the group.
    int64_t rowBytes = (q[3] + v[3]) * elementBytes + 8;
    CheckedInt reads = streamed * (q[0] * heads) * rowBytes;
    rereadBytes = reads - queryRows;
    kernel.rereadFootprint = group * querySeq * rowBytes;
    flops = scores * (4 * q[3] + 4 * v[3] + 6);
    kernel.bytesWritten =
        getTensorBytes(op.getKeyGrad()) + getTensorBytes(op.getValueGrad());
  }
  // A mask is read once per score it applies to, mostly from cache: priced
  // at its own size, as for the forward.
  CheckedInt bytesRead = CheckedInt(queryRows) + keyRows +
                         (op.getMask() ? getTensorBytes(op.getMask()) : 0);
  // Both kernels regenerate the forward's dropout mask.
  CheckedInt integerOps = 0;
  if (op.getDropoutP() && scores.valid())
    integerOps = CheckedInt(getAttentionDropoutCalls(*scores.get(), keySeq,
                                                     /*keyMajor=*/piece == 1)) *
                 kAttentionPhiloxCallOps;
  return withAttentionCounts(kernel, bytesRead, rereadBytes, flops, integerOps);
}

/// The kernel that produced `value`, looking through views (a reshape of a
/// kernel's output is still that output in memory).
static Operation *producingOp(Value value) {
  Operation *def = value.getDefiningOp();
  while (auto view = dyn_cast_or_null<CostOpInterface>(def)) {
    if (view.getOpClass() != OpClass::View)
      break;
    def = view->getOperand(0).getDefiningOp();
  }
  return def;
}

std::vector<KernelCost> mlir::tfuse::scheduleKernels(func::FuncOp func) {
  std::vector<KernelCost> kernels;
  unsigned steps = 0, emitted = 0;
  OptimizerGroup optimizer = findOptimizerGroup(func.getBody().front());
  for (Operation &op : func.getBody().front())
    scheduleOp(op, optimizer, kernels, steps, emitted);
  // Reads of what the previous kernel just wrote may still be in L2.
  for (size_t i = 1; i < kernels.size(); ++i) {
    KernelCost &kernel = kernels[i];
    const KernelCost &previous = kernels[i - 1];
    if (kernel.op == previous.op || kernel.bytesRead == 0)
      continue;
    llvm::SmallPtrSet<Value, 4> seen;
    for (Value operand : kernel.op->getOperands())
      if (seen.insert(operand).second && producingOp(operand) == previous.op)
        kernel.l2CandidateBytes += getTensorBytes(operand);
    kernel.l2CandidateBytes =
        std::min(kernel.l2CandidateBytes, kernel.bytesRead);
    kernel.producerBytesWritten = previous.bytesWritten;
  }
  return kernels;
}
