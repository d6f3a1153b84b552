//===- NormGradients.cpp - backward of reductions and norms -----*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// reduce, softmax, layer_norm and rms_norm. The norms recompute their row
// statistics from the saved input (two row reductions) rather than saving
// them; gamma and beta gradients are column reductions over every row.
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

/// The normalised input of a layer_norm / rms_norm and its per-row factor
/// 1 / sqrt(var + eps), recomputed from x.
struct Normalized {
  Value xhat, rstd;
};

Normalized normalize(GradientBuilder &b, Value x, double eps, bool center) {
  int64_t last = GradientBuilder::shapeOf(x).size() - 1;
  Type e = GradientBuilder::typeOf(x).getElementType();
  Value c = x;
  if (center)
    c = b.sub(x, b.reduce(ReduceKind::mean, x, last, true));
  Value var = b.reduce(ReduceKind::mean, b.mul(c, c), last, true);
  Value rstd = b.unary<RsqrtOp>(b.add(var, b.scalar(e, eps)));
  return {b.mul(c, rstd), rstd};
}

/// Sets the gradients of a norm's input, gamma (operand gammaIndex) and beta
/// (operand betaIndex); an index of -1 means the operand is absent. The
/// arithmetic is f32 whatever the element type (as PyTorch's autocast does:
/// the differences of row means cancel), rounded back at the end.
void normGrad(GradientRequest &r, GradientBuilder &b, Value x, Value gamma,
              double eps, bool center, int gammaIndex, int betaIndex) {
  Type element = GradientBuilder::typeOf(x).getElementType();
  Type f32 = Float32Type::get(x.getContext());
  Value g = b.castTo(r.resultGrads[0], f32);
  x = b.castTo(x, f32);
  if (gamma)
    gamma = b.castTo(gamma, f32);
  int64_t last = GradientBuilder::shapeOf(x).size() - 1;
  Normalized n = normalize(b, x, eps, center);
  if (r.wanted[0]) {
    Value dxhat = gamma ? b.mul(g, gamma) : g;
    Value proj = b.mul(
        n.xhat, b.reduce(ReduceKind::mean, b.mul(dxhat, n.xhat), last, true));
    Value centered = b.sub(dxhat, proj);
    if (center)
      centered = b.sub(centered, b.reduce(ReduceKind::mean, dxhat, last, true));
    r.operandGrads[0] = b.castTo(b.mul(n.rstd, centered), element);
  }
  if (gammaIndex >= 0 && r.wanted[gammaIndex])
    r.operandGrads[gammaIndex] = b.castTo(b.sumRows(b.mul(g, n.xhat)), element);
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
