//===- TFuseCost.cpp - cost interface of the tfuse ops ----------*- C++ -*-===//
//
// FLOPs, bytes and op class of every op when it runs as its own kernel. The
// formulas are documented in docs/cost-model.md and checked by hand-computed
// tests in test/Analysis.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TFuseOps.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::tfuse;

#include "tfuse/Dialect/TFuse/TFuseInterfaces.cpp.inc"

StringRef mlir::tfuse::stringifyOpClass(OpClass opClass) {
  switch (opClass) {
  case OpClass::Contraction:
    return "contraction";
  case OpClass::Elementwise:
    return "elementwise";
  case OpClass::Reduction:
    return "reduction";
  case OpClass::Layout:
    return "layout";
  case OpClass::View:
    return "view";
  case OpClass::Constant:
    return "constant";
  case OpClass::Optimizer:
    return "optimizer";
  case OpClass::Collective:
    return "collective";
  }
  llvm_unreachable("unknown op class");
}

CheckedInt mlir::tfuse::getCheckedTensorBytes(Value value) {
  auto type = cast<ShapedType>(value.getType());
  return checkedProduct(type.getShape()) *
         static_cast<int64_t>(
             llvm::divideCeil(type.getElementTypeBitWidth(), 8));
}

int64_t mlir::tfuse::getTensorBytes(Value value) {
  return getCheckedTensorBytes(value).valueOr(INT64_MAX);
}

/// Fails with an error at `op` when `value` (its `what` #`index`) has more
/// elements than a tensor may have.
static LogicalResult verifyTensorSize(Operation *op, Value value,
                                      StringRef what, unsigned index) {
  auto type = dyn_cast<ShapedType>(value.getType());
  if (!type || !type.hasStaticShape() || checkedTensorElements(type.getShape()))
    return success();
  InFlightDiagnostic diag = op->emitOpError() << what << " #" << index << " ("
                                              << type << ") has ";
  if (std::optional<int64_t> elements = checkedProduct(type.getShape()).get())
    diag << *elements << " elements";
  else
    diag << "more than 2^63 elements";
  return diag << "; a tensor may have at most 2^40 = " << kMaxTensorElements;
}

LogicalResult mlir::tfuse::verifyArgumentSizes(func::FuncOp func) {
  for (auto [index, argument] : llvm::enumerate(func.getArguments()))
    if (failed(verifyTensorSize(func, argument, "argument", index)))
      return failure();
  return success();
}

LogicalResult mlir::tfuse::verifyCostFits(Operation *op) {
  for (auto [index, operand] : llvm::enumerate(op->getOperands()))
    if (failed(verifyTensorSize(op, operand, "operand", index)))
      return failure();
  for (auto [index, result] : llvm::enumerate(op->getResults()))
    if (failed(verifyTensorSize(op, result, "result", index)))
      return failure();
  auto cost = cast<CostOpInterface>(op);
  if (!(cost.computeBytesRead() + cost.computeBytesWritten()).valid())
    return op->emitOpError() << "moves more bytes than an int64 can count";
  if (!cost.computeFlops().valid())
    return op->emitOpError() << "needs more FLOPs than an int64 can count";
  return success();
}

std::string mlir::tfuse::formatElementType(Type type) {
  if (type.isBF16())
    return "bf16";
  if (type.isF16())
    return "f16";
  if (type.isF32())
    return "f32";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

static CheckedInt numElements(Value value) {
  return checkedProduct(cast<ShapedType>(value.getType()).getShape());
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

OpClass MatmulOp::getOpClass() { return OpClass::Contraction; }

/// 2 M N K per matrix product (a multiply and an add), for every batch.
CheckedInt MatmulOp::computeFlops() {
  return 2 * numElements(getResult()) * getK();
}

OpClass AttentionOp::getOpClass() { return OpClass::Contraction; }

/// As one fused kernel: the two products (4 B H Sq Sk D, with Dv for the
/// second) plus ~5 operations per score for scale, mask, softmax, dropout.
CheckedInt AttentionOp::computeFlops() {
  ArrayRef<int64_t> q = getQuery().getType().getShape();
  ArrayRef<int64_t> v = getValue().getType().getShape();
  CheckedInt scores = CheckedInt(q[0]) * q[1] * q[2] * v[2];
  return 2 * scores * q[3] + 2 * scores * v[3] + 5 * scores;
}

OpClass AttentionGradOp::getOpClass() { return OpClass::Contraction; }

/// FlashAttention-2's backward: the scores again (2 D a score), dV and dP
/// (2 Dv each), dQ and dK (2 D each), plus ~8 operations per score for the
/// probabilities and dS.
CheckedInt AttentionGradOp::computeFlops() {
  ArrayRef<int64_t> q = getQuery().getType().getShape();
  ArrayRef<int64_t> v = getValue().getType().getShape();
  CheckedInt scores = CheckedInt(q[0]) * q[1] * q[2] * v[2];
  return 6 * scores * q[3] + 4 * scores * v[3] + 8 * scores;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

#define TFUSE_ELEMENTWISE_COST(OP, FLOPS_PER_ELEMENT)                          \
  OpClass OP::getOpClass() { return OpClass::Elementwise; }                    \
  CheckedInt OP::computeFlops() {                                              \
    return CheckedInt(FLOPS_PER_ELEMENT) * numElements(getResult());           \
  }

TFUSE_ELEMENTWISE_COST(AddOp, 1)
TFUSE_ELEMENTWISE_COST(SubOp, 1)
TFUSE_ELEMENTWISE_COST(MulOp, 1)
TFUSE_ELEMENTWISE_COST(DivOp, 1)
TFUSE_ELEMENTWISE_COST(MaxOp, 1)
TFUSE_ELEMENTWISE_COST(MinOp, 1)
TFUSE_ELEMENTWISE_COST(NegOp, kFlopsPerElement)
TFUSE_ELEMENTWISE_COST(ExpOp, kFlopsPerElement)
TFUSE_ELEMENTWISE_COST(LogOp, kFlopsPerElement)
TFUSE_ELEMENTWISE_COST(TanhOp, kFlopsPerElement)
TFUSE_ELEMENTWISE_COST(ErfOp, kFlopsPerElement)
TFUSE_ELEMENTWISE_COST(SqrtOp, kFlopsPerElement)
TFUSE_ELEMENTWISE_COST(RsqrtOp, kFlopsPerElement)
TFUSE_ELEMENTWISE_COST(SigmoidOp, kFlopsPerElement)
TFUSE_ELEMENTWISE_COST(ReluOp, kFlopsPerElement)
TFUSE_ELEMENTWISE_COST(SiluOp, kFlopsPerElement)
TFUSE_ELEMENTWISE_COST(StepOp, kFlopsPerElement)
// erf form: x/sqrt(2), erf, +1, *x, *0.5; tanh form: x^3 (2), *0.044715, +x,
// *sqrt(2/pi), tanh, +1, *x, *0.5.
TFUSE_ELEMENTWISE_COST(GeluOp,
                       getApproximate() == GeluApproximation::tanh ? 9 : 5)
TFUSE_ELEMENTWISE_COST(CastOp, 1)
// Counter-based RNG is integer work (Philox rounds), not counted as FLOPs;
// the select and the scale are.
TFUSE_ELEMENTWISE_COST(DropoutOp, 2)

#undef TFUSE_ELEMENTWISE_COST

OpClass ConstantOp::getOpClass() { return OpClass::Constant; }
CheckedInt ConstantOp::computeFlops() { return 0; }
/// Constants are materialised by the compiler; their readers count them.
CheckedInt ConstantOp::computeBytesRead() { return 0; }
CheckedInt ConstantOp::computeBytesWritten() { return 0; }

//===----------------------------------------------------------------------===//
// Reductions and normalisations
//===----------------------------------------------------------------------===//

OpClass ReduceOp::getOpClass() { return OpClass::Reduction; }
/// One combine per input element (mean adds one division per output).
CheckedInt ReduceOp::computeFlops() {
  CheckedInt flops = numElements(getInput());
  if (getKind() == ReduceKind::mean)
    flops += numElements(getResult());
  return flops;
}

OpClass SoftmaxOp::getOpClass() { return OpClass::Reduction; }
/// max, subtract, exp, sum, divide: 5 per element.
CheckedInt SoftmaxOp::computeFlops() { return 5 * numElements(getInput()); }

OpClass LayerNormOp::getOpClass() { return OpClass::Reduction; }
/// mean (1), centre (1), square and sum (2), normalise (1), plus one
/// operation for each of gamma and beta.
CheckedInt LayerNormOp::computeFlops() {
  return CheckedInt(5 + (getGamma() ? 1 : 0) + (getBeta() ? 1 : 0)) *
         numElements(getInput());
}

OpClass RmsNormOp::getOpClass() { return OpClass::Reduction; }
/// square and sum (2), normalise (1), plus one for gamma.
CheckedInt RmsNormOp::computeFlops() {
  return CheckedInt(3 + (getGamma() ? 1 : 0)) * numElements(getInput());
}

OpClass NormGradOp::getOpClass() { return OpClass::Reduction; }
/// The statistics again (5, or 2 with rms), g = dy gamma (1), the two row
/// sums of g and g xhat (4) and dx (4).
CheckedInt NormGradOp::computeFlops() {
  return CheckedInt((getRms() ? 2 : 5) + (getGamma() ? 1 : 0) + 8) *
         numElements(getInput());
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

OpClass CrossEntropyOp::getOpClass() { return OpClass::Reduction; }
/// The softmax's statistics (max, subtract, exp, sum: 4 per logit) and one
/// comparison per logit picking the label's.
CheckedInt CrossEntropyOp::computeFlops() {
  return 5 * numElements(getLogits());
}

OpClass CrossEntropyGradOp::getOpClass() { return OpClass::Reduction; }
/// The softmax again (5 per logit), the one-hot subtraction and the scale.
CheckedInt CrossEntropyGradOp::computeFlops() {
  return 7 * numElements(getLogits());
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

OpClass ReshapeOp::getOpClass() { return OpClass::View; }
CheckedInt ReshapeOp::computeFlops() { return 0; }
/// Row-major order is kept: a reshape is a view and moves nothing.
CheckedInt ReshapeOp::computeBytesRead() { return 0; }
CheckedInt ReshapeOp::computeBytesWritten() { return 0; }

OpClass TransposeOp::getOpClass() { return OpClass::Layout; }
CheckedInt TransposeOp::computeFlops() { return 0; }

OpClass SliceOp::getOpClass() { return OpClass::Layout; }
CheckedInt SliceOp::computeFlops() { return 0; }
/// Only the sliced box is read.
CheckedInt SliceOp::computeBytesRead() {
  return getCheckedTensorBytes(getResult());
}
CheckedInt SliceOp::computeBytesWritten() {
  return getCheckedTensorBytes(getResult());
}

OpClass SplitOp::getOpClass() { return OpClass::Layout; }
CheckedInt SplitOp::computeFlops() { return 0; }

OpClass ConcatOp::getOpClass() { return OpClass::Layout; }
CheckedInt ConcatOp::computeFlops() { return 0; }

OpClass GatherOp::getOpClass() { return OpClass::Layout; }
CheckedInt GatherOp::computeFlops() { return 0; }
/// The indices and the selected rows, not the whole table.
CheckedInt GatherOp::computeBytesRead() {
  return getCheckedTensorBytes(getIndices()) +
         getCheckedTensorBytes(getResult());
}
CheckedInt GatherOp::computeBytesWritten() {
  return getCheckedTensorBytes(getResult());
}

OpClass GatherGradOp::getOpClass() { return OpClass::Layout; }
/// One addition per element of grad.
CheckedInt GatherGradOp::computeFlops() { return numElements(getGrad()); }
/// The gradient rows and their indices, each once. Zeroing the result (or an
/// f32 accumulator) is not priced here: that is how a kernel computes it,
/// and KernelCost.cpp prices the kernels tfuse-compile emits.
CheckedInt GatherGradOp::computeBytesRead() {
  return getCheckedTensorBytes(getGrad()) + getCheckedTensorBytes(getIndices());
}
/// The table-sized result, once.
CheckedInt GatherGradOp::computeBytesWritten() {
  return getCheckedTensorBytes(getResult());
}

OpClass CausalMaskOp::getOpClass() { return OpClass::Elementwise; }
/// One comparison per element; it reads nothing.
CheckedInt CausalMaskOp::computeFlops() { return numElements(getResult()); }

/// A layout op to the fusion planner (each element reads a partner), run by
/// the copy kernel that writes q or k head-major (lib/Analysis/KernelCost.cpp).
OpClass RopeOp::getOpClass() { return OpClass::Layout; }
/// Per rotated element: cos and sin of the angle, two multiplies and an add.
CheckedInt RopeOp::computeFlops() {
  RankedTensorType type = getInput().getType();
  int64_t rows =
      type.getNumElements() / std::max<int64_t>(1, type.getShape().back());
  return CheckedInt(rows) * getRotaryDim() * 5;
}

OpClass WindowMaskOp::getOpClass() { return OpClass::Elementwise; }
/// Two comparisons per element; it reads nothing.
CheckedInt WindowMaskOp::computeFlops() {
  return CheckedInt(2) * numElements(getResult());
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

// An update reads every operand once (param, grad, the state, lr and step)
// and writes every result once: the interface's defaults. One operation
// per element each for converting a low-precision gradient and rounding
// the model weight; the bias corrections are per tensor, not counted.

static CheckedInt conversionFlops(Value grad, Value modelWeight) {
  CheckedInt perElement =
      (cast<ShapedType>(grad.getType()).getElementType().isF32() ? 0 : 1) +
      (modelWeight ? 1 : 0);
  return perElement * numElements(grad);
}

OpClass AdamWOp::getOpClass() { return OpClass::Optimizer; }
/// Per element: decay (2: lr * wd * p, subtract; none when wd = 0), m (3),
/// v (4), sqrt,
/// divide, add eps (3), the step (3: divide, scale, subtract).
CheckedInt AdamWOp::computeFlops() {
  return CheckedInt(getWeightDecay().isZero() ? 13 : 15) *
             numElements(getParam()) +
         conversionFlops(getGrad(), getModelWeight());
}

OpClass SgdOp::getOpClass() { return OpClass::Optimizer; }
/// Per element: weight decay (2, when non-zero), the buffer (3), nesterov
/// (2), the step (2).
CheckedInt SgdOp::computeFlops() {
  int64_t perElement =
      5 + (getWeightDecay().isZero() ? 0 : 2) + (getNesterov() ? 2 : 0);
  return CheckedInt(perElement) * numElements(getParam()) +
         conversionFlops(getGrad(), getModelWeight());
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

// A collective reads its input and writes its result once in device memory
// (the interface's defaults); what crosses the interconnect is priced
// separately, by the traffic analysis (docs/cost-model.md, section 4).

/// The additions one rank makes in a ring over E elements among n ranks:
/// its reduce-scatter phase adds n - 1 incoming slices of E / n elements.
static CheckedInt ringAdditions(Value input, int64_t groupSize) {
  CheckedInt product = numElements(input) * std::max<int64_t>(0, groupSize - 1);
  if (std::optional<int64_t> value = product.get())
    return *value / std::max<int64_t>(1, groupSize);
  return product;
}

OpClass AllReduceOp::getOpClass() { return OpClass::Collective; }
/// (n - 1) E / n additions (E the elements, rounded down).
CheckedInt AllReduceOp::computeFlops() {
  return ringAdditions(getInput(), getGroupSize());
}

OpClass ReduceScatterOp::getOpClass() { return OpClass::Collective; }
/// (n - 1) E / n additions: n - 1 per element of the rank's slice.
CheckedInt ReduceScatterOp::computeFlops() {
  return ringAdditions(getInput(), getGroupSize());
}

OpClass AllGatherOp::getOpClass() { return OpClass::Collective; }
CheckedInt AllGatherOp::computeFlops() { return 0; }

//===----------------------------------------------------------------------===//
// FusionOp
//===----------------------------------------------------------------------===//

OpClass FusionOp::getOpClass() {
  switch (getKind()) {
  case FusionKind::loop:
    return OpClass::Elementwise;
  case FusionKind::row_reduction:
    return OpClass::Reduction;
  case FusionKind::gemm_epilogue:
    return OpClass::Contraction;
  case FusionKind::multi_tensor:
    return OpClass::Optimizer;
  }
  llvm_unreachable("unknown fusion kind");
}

/// The members' arithmetic; the bytes are the region's inputs and results
/// (the interface defaults), since intermediates stay in registers.
CheckedInt FusionOp::computeFlops() {
  CheckedInt flops = 0;
  for (auto member : getBody().getOps<CostOpInterface>())
    flops += member.computeFlops();
  return flops;
}
