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
  }
  llvm_unreachable("unknown op class");
}

int64_t mlir::tfuse::getTensorBytes(Value value) {
  auto type = cast<ShapedType>(value.getType());
  return type.getNumElements() *
         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
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

static int64_t numElements(Value value) {
  return cast<ShapedType>(value.getType()).getNumElements();
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

OpClass MatmulOp::getOpClass() { return OpClass::Contraction; }

/// 2 M N K per matrix product (a multiply and an add), for every batch.
int64_t MatmulOp::getFlops() { return 2 * numElements(getResult()) * getK(); }

OpClass AttentionOp::getOpClass() { return OpClass::Contraction; }

/// As one fused kernel: the two products (4 B H Sq Sk D, with Dv for the
/// second) plus ~5 operations per score for scale, mask, softmax, dropout.
int64_t AttentionOp::getFlops() {
  ArrayRef<int64_t> q = getQuery().getType().getShape();
  ArrayRef<int64_t> v = getValue().getType().getShape();
  int64_t scores = q[0] * q[1] * q[2] * v[2];
  return 2 * scores * q[3] + 2 * scores * v[3] + 5 * scores;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

#define TFUSE_ELEMENTWISE_COST(OP, FLOPS_PER_ELEMENT)                          \
  OpClass OP::getOpClass() { return OpClass::Elementwise; }                    \
  int64_t OP::getFlops() {                                                     \
    return (FLOPS_PER_ELEMENT) * numElements(getResult());                     \
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
int64_t ConstantOp::getFlops() { return 0; }
/// Constants are materialised by the compiler; their readers count them.
int64_t ConstantOp::getBytesRead() { return 0; }
int64_t ConstantOp::getBytesWritten() { return 0; }

//===----------------------------------------------------------------------===//
// Reductions and normalisations
//===----------------------------------------------------------------------===//

OpClass ReduceOp::getOpClass() { return OpClass::Reduction; }
/// One combine per input element (mean adds one division per output).
int64_t ReduceOp::getFlops() {
  int64_t flops = numElements(getInput());
  if (getKind() == ReduceKind::mean)
    flops += numElements(getResult());
  return flops;
}

OpClass SoftmaxOp::getOpClass() { return OpClass::Reduction; }
/// max, subtract, exp, sum, divide: 5 per element.
int64_t SoftmaxOp::getFlops() { return 5 * numElements(getInput()); }

OpClass LayerNormOp::getOpClass() { return OpClass::Reduction; }
/// mean (1), centre (1), square and sum (2), normalise (1), plus one
/// operation for each of gamma and beta.
int64_t LayerNormOp::getFlops() {
  return (5 + (getGamma() ? 1 : 0) + (getBeta() ? 1 : 0)) *
         numElements(getInput());
}

OpClass RmsNormOp::getOpClass() { return OpClass::Reduction; }
/// square and sum (2), normalise (1), plus one for gamma.
int64_t RmsNormOp::getFlops() {
  return (3 + (getGamma() ? 1 : 0)) * numElements(getInput());
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

OpClass ReshapeOp::getOpClass() { return OpClass::View; }
int64_t ReshapeOp::getFlops() { return 0; }
/// Row-major order is kept: a reshape is a view and moves nothing.
int64_t ReshapeOp::getBytesRead() { return 0; }
int64_t ReshapeOp::getBytesWritten() { return 0; }

OpClass TransposeOp::getOpClass() { return OpClass::Layout; }
int64_t TransposeOp::getFlops() { return 0; }

OpClass SliceOp::getOpClass() { return OpClass::Layout; }
int64_t SliceOp::getFlops() { return 0; }
/// Only the sliced box is read.
int64_t SliceOp::getBytesRead() { return getTensorBytes(getResult()); }
int64_t SliceOp::getBytesWritten() { return getTensorBytes(getResult()); }

OpClass SplitOp::getOpClass() { return OpClass::Layout; }
int64_t SplitOp::getFlops() { return 0; }

OpClass ConcatOp::getOpClass() { return OpClass::Layout; }
int64_t ConcatOp::getFlops() { return 0; }

OpClass GatherOp::getOpClass() { return OpClass::Layout; }
int64_t GatherOp::getFlops() { return 0; }
/// The indices and the selected rows, not the whole table.
int64_t GatherOp::getBytesRead() {
  return getTensorBytes(getIndices()) + getTensorBytes(getResult());
}
int64_t GatherOp::getBytesWritten() { return getTensorBytes(getResult()); }

OpClass CausalMaskOp::getOpClass() { return OpClass::Elementwise; }
/// One comparison per element; it reads nothing.
int64_t CausalMaskOp::getFlops() { return numElements(getResult()); }

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
  }
  llvm_unreachable("unknown fusion kind");
}

/// The members' arithmetic; the bytes are the region's inputs and results
/// (the interface defaults), since intermediates stay in registers.
int64_t FusionOp::getFlops() {
  int64_t flops = 0;
  for (auto member : getBody().getOps<CostOpInterface>())
    flops += member.getFlops();
  return flops;
}
