//===- ContractionGradients.cpp - backward of matmul, attention -*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// C = op(A) op(B) gives dA and dB as two matmuls with the transposes below;
// an operand whose batch dimensions broadcast gets its gradient summed over
// them (a weight [K, N] under an activation [B, M, K] becomes one GEMM over
// the flattened B * M rows, not B GEMMs and a sum).
//
//===----------------------------------------------------------------------===//

#include "GradientBuilder.h"

using namespace mlir;
using namespace mlir::tfuse;
using namespace mlir::tfuse::autodiff;

namespace {

/// Flattens the batch dimensions of an untransposed [..., R, C] operand into
/// its rows: [prod(...) * R, C].
Value flattenRows(GradientBuilder &b, Value value) {
  ArrayRef<int64_t> shape = GradientBuilder::shapeOf(value);
  int64_t rows = GradientBuilder::typeOf(value).getNumElements() / shape.back();
  return b.reshape(value, {rows, shape.back()});
}

/// The gradient of a rank-2 operand `weight` shared by every batch of the
/// other operand `other` (untransposed): one GEMM over the flattened rows.
/// With C = other · W:  dW = other^T · dC ([K, N]); with C = other · W^T
/// (transposed weight [N, K]): dW = dC^T · other.
Value sharedWeightGrad(GradientBuilder &b, Value other, Value dC,
                       bool transposeWeight) {
  Value rows = flattenRows(b, other), grads = flattenRows(b, dC);
  return transposeWeight ? b.matmul(grads, true, rows, false)
                         : b.matmul(rows, true, grads, false);
}

LogicalResult matmulGrad(GradientRequest &r, GradientBuilder &b, MatmulOp op) {
  Value g = r.resultGrads[0];
  Value a = op.getLhs(), w = op.getRhs();
  bool ta = op.getTransposeLhs(), tb = op.getTransposeRhs();
  ArrayRef<int64_t> aShape = GradientBuilder::shapeOf(a),
                    bShape = GradientBuilder::shapeOf(w);
  if (r.wanted[0]) {
    // op(A) = A: dA = dC · op(B)^T; op(A) = A^T: dA = op(B) · dC^T.
    Value grad = ta ? b.matmul(w, tb, g, true) : b.matmul(g, false, w, !tb);
    r.operandGrads[0] = b.sumToShape(grad, aShape);
  }
  if (r.wanted[1]) {
    // op(B) = B: dB = op(A)^T · dC; op(B) = B^T: dB = dC^T · op(A).
    Value grad;
    if (bShape.size() == 2 && aShape.size() > 2 && !ta)
      grad = sharedWeightGrad(b, a, g, tb);
    else
      grad = tb ? b.matmul(g, true, a, ta) : b.matmul(a, !ta, g, false);
    r.operandGrads[1] = b.sumToShape(grad, bShape);
  }
  return success();
}

/// The fused backward of an attention op that prepareAttentionForBackward
/// kept whole: delta = sum_c dO_ic O_ic in f32 (one row reduction), then
/// tfuse.attention_grad.
LogicalResult attentionGrad(GradientRequest &r, GradientBuilder &b,
                            AttentionOp op) {
  if (!op.getLse())
    return op.emitOpError() << "reached the gradient rules without its "
                               "log-sum-exp (internal error: "
                               "prepareAttentionForBackward decides)";
  if (op.getMask() && r.wanted[3])
    return op.emitOpError() << "needs the gradient of its mask, which the "
                               "fused backward does not give";
  Value outGrad = r.resultGrads[0];
  if (!outGrad)
    return success(); // only the log-sum-exp is read: no gradient flows
  Type f32 = b.getBuilder().getF32Type();
  Value delta =
      b.reduce(ReduceKind::sum,
               b.mul(b.castTo(outGrad, f32), b.castTo(op.getResult(), f32)), 3,
               /*keepDims=*/false);
  SmallVector<Type> types{op.getQuery().getType(), op.getKey().getType(),
                          op.getValue().getType()};
  auto grad = AttentionGradOp::create(b.getBuilder(), b.getLoc(), types,
                                      op.getQuery(), op.getKey(), op.getValue(),
                                      outGrad, op.getLse(), delta, op.getMask(),
                                      op.getScaleAttr(), op.getCausalAttr(),
                                      op.getDropoutPAttr(), op.getSeedAttr());
  for (unsigned i = 0; i < 3; ++i)
    if (r.wanted[i])
      r.operandGrads[i] = grad.getResult(i);
  return success();
}

} // namespace

std::optional<LogicalResult>
autodiff::differentiateContraction(GradientRequest &r, GradientBuilder &b) {
  if (auto matmul = dyn_cast<MatmulOp>(r.op))
    return matmulGrad(r, b, matmul);
  // Only the attention ops prepareAttentionForBackward (TrainingStep.cpp)
  // kept whole reach the rules; it decomposes the others.
  if (auto attention = dyn_cast<AttentionOp>(r.op))
    return attentionGrad(r, b, attention);
  return std::nullopt;
}

bool autodiff::isExpensiveToRecompute(Operation *op) {
  return isa<MatmulOp, AttentionOp>(op);
}
