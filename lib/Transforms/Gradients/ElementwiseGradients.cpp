//===- ElementwiseGradients.cpp - backward of elementwise ops ---*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Binary ops (the gradient of a broadcast operand is summed over the
// dimensions it was broadcast along), unary ops, gelu, cast and dropout.
// Dropout's backward is the same dropout (same p, seed and shape) applied to
// the gradient: the Philox mask is a function of seed and element index, so
// it is regenerated, never stored.
//
//===----------------------------------------------------------------------===//

#include "GradientBuilder.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfuse;
using namespace mlir::tfuse::autodiff;

namespace {

/// Sets the gradients of a binary op's operands from the gradients they
/// would have without broadcasting.
void setBinary(GradientRequest &r, GradientBuilder &b, Value lhsGrad,
               Value rhsGrad) {
  Value grads[] = {lhsGrad, rhsGrad};
  for (auto [i, grad] : llvm::enumerate(grads))
    if (r.wanted[i] && grad)
      r.operandGrads[i] =
          b.sumToShape(grad, GradientBuilder::shapeOf(r.op->getOperand(i)));
}

LogicalResult binaryGrad(GradientRequest &r, GradientBuilder &b) {
  Value g = r.resultGrads[0];
  Value lhs = r.op->getOperand(0), rhs = r.op->getOperand(1);
  Value y = r.op->getResult(0);
  bool wantL = r.wanted[0], wantR = r.wanted[1];
  llvm::TypeSwitch<Operation *>(r.op)
      .Case([&](AddOp) { setBinary(r, b, g, g); })
      .Case([&](SubOp) {
        setBinary(r, b, g, wantR ? b.unary<NegOp>(g) : Value());
      })
      .Case([&](MulOp) {
        setBinary(r, b, wantL ? b.mul(g, rhs) : Value(),
                  wantR ? b.mul(g, lhs) : Value());
      })
      .Case([&](DivOp) {
        // d(a/b)/db = -(a/b)/b.
        Value gOverB = b.div(g, rhs);
        setBinary(r, b, gOverB,
                  wantR ? b.unary<NegOp>(b.mul(gOverB, y)) : Value());
      })
      .Case([&](MaxOp) {
        // The larger operand takes the gradient; a tie goes to rhs.
        Value pick = b.unary<StepOp>(b.sub(lhs, rhs));
        Value lhsGrad = b.mul(g, pick);
        setBinary(r, b, lhsGrad, wantR ? b.sub(g, lhsGrad) : Value());
      })
      .Case([&](MinOp) {
        Value pick = b.unary<StepOp>(b.sub(rhs, lhs));
        Value lhsGrad = b.mul(g, pick);
        setBinary(r, b, lhsGrad, wantR ? b.sub(g, lhsGrad) : Value());
      });
  return success();
}

/// The derivative of gelu at x times g.
Value geluGrad(GradientBuilder &b, GeluOp op, Value x, Value g) {
  Type e = GradientBuilder::typeOf(x).getElementType();
  Value one = b.scalar(e, 1.0);
  if (op.getApproximate() == GeluApproximation::tanh) {
    // y = 0.5 x (1 + t), t = tanh(k (x + c x^3)):
    // y' = 0.5 (1 + t) + 0.5 x (1 - t^2) k (1 + 3 c x^2).
    const double k = std::sqrt(2.0 / M_PI), c = 0.044715;
    Value x2 = b.mul(x, x);
    Value inner = b.scale(b.add(x, b.scale(b.mul(x2, x), c)), k);
    Value t = b.unary<TanhOp>(inner);
    Value dInner = b.scale(b.add(one, b.scale(x2, 3.0 * c)), k);
    Value sech2 = b.sub(one, b.mul(t, t));
    Value d = b.add(b.scale(b.add(one, t), 0.5),
                    b.mul(b.scale(x, 0.5), b.mul(sech2, dInner)));
    return b.mul(g, d);
  }
  // y = x Phi(x): y' = Phi(x) + x phi(x), phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
  Value cdf = b.scale(b.add(one, b.unary<ErfOp>(b.scale(x, M_SQRT1_2))), 0.5);
  Value pdf = b.scale(b.unary<ExpOp>(b.scale(b.mul(x, x), -0.5)),
                      1.0 / std::sqrt(2.0 * M_PI));
  return b.mul(g, b.add(cdf, b.mul(x, pdf)));
}

/// dy/dx of a unary op times g, from x and y = op(x).
Value unaryGrad(GradientBuilder &b, Operation *op, Value x, Value y, Value g) {
  Type e = GradientBuilder::typeOf(x).getElementType();
  auto one = [&] { return b.scalar(e, 1.0); };
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](NegOp) { return b.unary<NegOp>(g); })
      .Case([&](ExpOp) { return b.mul(g, y); })
      .Case([&](LogOp) { return b.div(g, x); })
      .Case([&](TanhOp) { return b.mul(g, b.sub(one(), b.mul(y, y))); })
      .Case([&](ErfOp) {
        // 2 / sqrt(pi) exp(-x^2).
        Value d = b.scale(b.unary<ExpOp>(b.unary<NegOp>(b.mul(x, x))),
                          2.0 / std::sqrt(M_PI));
        return b.mul(g, d);
      })
      .Case([&](SqrtOp) { return b.div(b.scale(g, 0.5), y); })
      .Case([&](RsqrtOp) {
        // d x^(-1/2) = -x^(-3/2) / 2 = -y^3 / 2.
        return b.mul(g, b.scale(b.mul(b.mul(y, y), y), -0.5));
      })
      .Case([&](SigmoidOp) { return b.mul(g, b.mul(y, b.sub(one(), y))); })
      .Case([&](ReluOp) { return b.mul(g, b.unary<StepOp>(x)); })
      .Case([&](SiluOp) {
        // s (1 + x (1 - s)), s = sigmoid(x).
        Value s = b.unary<SigmoidOp>(x);
        return b.mul(g, b.mul(s, b.add(one(), b.mul(x, b.sub(one(), s)))));
      })
      .Case([&](GeluOp gelu) { return geluGrad(b, gelu, x, g); })
      .Default([](Operation *) { return Value(); });
}

} // namespace

std::optional<LogicalResult>
autodiff::differentiateElementwise(GradientRequest &r, GradientBuilder &b) {
  Operation *op = r.op;
  if (isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp>(op))
    return binaryGrad(r, b);
  // Constants and the causal mask have no operands; a step function has a
  // zero derivative almost everywhere.
  if (isa<ConstantOp, CausalMaskOp, StepOp>(op))
    return success();
  Value g = r.resultGrads[0];
  if (auto castOp = dyn_cast<CastOp>(op)) {
    r.operandGrads[0] =
        b.castTo(g, castOp.getInput().getType().getElementType());
    return success();
  }
  if (auto dropout = dyn_cast<DropoutOp>(op)) {
    r.operandGrads[0] =
        DropoutOp::create(b.getBuilder(), b.getLoc(), g, dropout.getPAttr(),
                          dropout.getSeedAttr());
    return success();
  }
  if (Value grad = unaryGrad(b, op, op->getOperand(0), op->getResult(0), g)) {
    r.operandGrads[0] = grad;
    return success();
  }
  return std::nullopt;
}
