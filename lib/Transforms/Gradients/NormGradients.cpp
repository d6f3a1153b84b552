//===- NormGradients.cpp - backward of reductions and norms -----*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// reduce, softmax, layer_norm and rms_norm. The norms' input gradient is
// one tfuse.norm_grad, which recomputes the row statistics from the saved
// input rather than saving them; gamma and beta gradients are column
// reductions over every row.
//
//   softmax:    dx = y (g - sum(g y))
//   layer_norm: dx = rstd (g' - mean(g') - xhat mean(g' xhat)), g' = g gamma
//   rms_norm:   dx = r (g' - xhat mean(g' xhat))
//
//===----------------------------------------------------------------------===//

#include "GradientBuilder.h"

using namespace mlir;
using namespace mlir::tfuse;
using namespace mlir::tfuse::autodiff;

namespace {

LogicalResult reduceGrad(GradientRequest &r, GradientBuilder &b, ReduceOp op) {
  Value x = op.getInput();
  ArrayRef<int64_t> shape = GradientBuilder::shapeOf(x);
  int64_t axis = op.getAxis();
  SmallVector<int64_t> kept(shape);
  kept[axis] = 1;
  Value g = b.reshape(r.resultGrads[0], kept);
  switch (op.getKind()) {
  case ReduceKind::sum:
    r.operandGrads[0] = b.broadcastTo(g, shape);
    break;
  case ReduceKind::mean:
    r.operandGrads[0] = b.broadcastTo(
        b.scale(g, 1.0 / static_cast<double>(shape[axis])), shape);
    break;
  case ReduceKind::max: {
    // Every element equal to the maximum takes the gradient.
    Value m = b.reshape(op.getResult(), kept);
    Type e = GradientBuilder::typeOf(x).getElementType();
    Value isMax = b.sub(b.scalar(e, 1.0), b.unary<StepOp>(b.sub(m, x)));
    r.operandGrads[0] = b.mul(g, isMax);
    break;
  }
  }
  return success();
}

LogicalResult softmaxGrad(GradientRequest &r, GradientBuilder &b,
                          SoftmaxOp op) {
  Value y = op.getResult(), g = r.resultGrads[0];
  Value dot = b.reduce(ReduceKind::sum, b.mul(g, y), op.getAxis(), true);
  r.operandGrads[0] = b.mul(y, b.sub(g, dot));
  return success();
}

/// Only the loss carries a derivative (counted is piecewise constant).
LogicalResult crossEntropyGrad(GradientRequest &r, GradientBuilder &b,
                               CrossEntropyOp op) {
  if (!r.wanted[0] || !r.resultGrads[0])
    return success();
  r.operandGrads[0] = CrossEntropyGradOp::create(
      b.getBuilder(), b.getLoc(), op.getLogits().getType(), op.getLogits(),
      op.getLabels(), r.resultGrads[0], op.getIgnoreIndexAttr());
  return success();
}

/// Sets the gradients of a norm's input, gamma (operand gammaIndex) and beta
/// (operand betaIndex); an index of -1 means the operand is absent. The
/// input's is one tfuse.norm_grad (a row kernel: the statistics recomputed
/// from x, f32 inside as PyTorch's autocast computes it); gamma's is the
/// column sum of dy xhat from norm_grad's per-row mean and rstd, and beta's
/// the column sum of dy, both in f32 and rounded back at the end.
void normGrad(GradientRequest &r, GradientBuilder &b, Value x, Value gamma,
              double eps, bool center, int gammaIndex, int betaIndex) {
  Type element = GradientBuilder::typeOf(x).getElementType();
  Type f32 = Float32Type::get(x.getContext());
  Value g = r.resultGrads[0];
  bool wantGamma = gammaIndex >= 0 && r.wanted[gammaIndex];
  if (r.wanted[0] || wantGamma) {
    SmallVector<int64_t> rowShape(GradientBuilder::shapeOf(x));
    rowShape.back() = 1;
    auto stat = RankedTensorType::get(rowShape, f32);
    auto grad = NormGradOp::create(
        b.getBuilder(), b.getLoc(), TypeRange{x.getType(), stat, stat}, x, g,
        gamma, b.getBuilder().getF64FloatAttr(eps),
        center ? UnitAttr() : b.getBuilder().getUnitAttr());
    if (r.wanted[0])
      r.operandGrads[0] = grad.getResult();
    if (wantGamma)
      r.operandGrads[gammaIndex] =
          b.castTo(b.sumRowsOf({g, x, grad.getMean(), grad.getRstd()},
                               [&](ArrayRef<Value> v) {
                                 // One statement per op: the IR's order must
                                 // not depend on the compiler's argument
                                 // evaluation.
                                 Value c = b.castTo(v[1], f32);
                                 if (center)
                                   c = b.sub(c, v[2]);
                                 Value xhat = b.mul(c, v[3]);
                                 Value dy = b.castTo(v[0], f32);
                                 return b.mul(dy, xhat);
                               }),
                   element);
  }
  if (betaIndex >= 0 && r.wanted[betaIndex])
    r.operandGrads[betaIndex] = b.castTo(b.sumRows(g), element);
}

} // namespace

std::optional<LogicalResult> autodiff::differentiateNorm(GradientRequest &r,
                                                         GradientBuilder &b) {
  if (auto reduce = dyn_cast<ReduceOp>(r.op))
    return reduceGrad(r, b, reduce);
  if (auto softmax = dyn_cast<SoftmaxOp>(r.op))
    return softmaxGrad(r, b, softmax);
  if (auto loss = dyn_cast<CrossEntropyOp>(r.op))
    return crossEntropyGrad(r, b, loss);
  if (auto ln = dyn_cast<LayerNormOp>(r.op)) {
    int gammaIndex = ln.getGamma() ? 1 : -1;
    int betaIndex = ln.getBeta() ? (ln.getGamma() ? 2 : 1) : -1;
    normGrad(r, b, ln.getInput(), ln.getGamma(),
             ln.getEpsilon().convertToDouble(), /*center=*/true, gammaIndex,
             betaIndex);
    return success();
  }
  if (auto rms = dyn_cast<RmsNormOp>(r.op)) {
    normGrad(r, b, rms.getInput(), rms.getGamma(),
             rms.getEpsilon().convertToDouble(), /*center=*/false,
             rms.getGamma() ? 1 : -1, -1);
    return success();
  }
  return std::nullopt;
}
