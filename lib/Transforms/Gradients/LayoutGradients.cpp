//===- LayoutGradients.cpp - backward of layout ops -------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// reshape and transpose invert themselves; slice pads its gradient with
// zeros (concat), split concatenates its pieces' gradients, concat slices;
// gather's table gets tfuse.gather_grad (a scatter-add of rows).
//
//===----------------------------------------------------------------------===//

#include "GradientBuilder.h"

using namespace mlir;
using namespace mlir::tfuse;
using namespace mlir::tfuse::autodiff;

namespace {

/// Joins `pieces` along `axis`, or returns the only piece.
Value concat(GradientBuilder &b, ArrayRef<Value> pieces, int64_t axis) {
  if (pieces.size() == 1)
    return pieces.front();
  SmallVector<int64_t> shape(GradientBuilder::shapeOf(pieces.front()));
  shape[axis] = 0;
  for (Value piece : pieces)
    shape[axis] += GradientBuilder::shapeOf(piece)[axis];
  auto type = RankedTensorType::get(
      shape, GradientBuilder::typeOf(pieces.front()).getElementType());
  return ConcatOp::create(b.getBuilder(), b.getLoc(), type, pieces, axis);
}

/// Zeros of `like`'s type with size `size` along `axis`.
Value zerosAlong(GradientBuilder &b, Value like, int64_t axis, int64_t size) {
  RankedTensorType type = GradientBuilder::typeOf(like);
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = size;
  return b.splat(type.clone(shape), 0.0);
}

/// The gradient of a slice's input: g placed at `offsets` in zeros of
/// `inputShape`, padded one axis at a time.
Value padSlice(GradientBuilder &b, Value g, ArrayRef<int64_t> offsets,
               ArrayRef<int64_t> inputShape) {
  for (size_t axis = 0; axis < inputShape.size(); ++axis) {
    int64_t size = GradientBuilder::shapeOf(g)[axis];
    int64_t before = offsets[axis], after = inputShape[axis] - before - size;
    SmallVector<Value> pieces;
    if (before > 0)
      pieces.push_back(zerosAlong(b, g, axis, before));
    pieces.push_back(g);
    if (after > 0)
      pieces.push_back(zerosAlong(b, g, axis, after));
    g = concat(b, pieces, axis);
  }
  return g;
}

} // namespace

std::optional<LogicalResult> autodiff::differentiateLayout(GradientRequest &r,
                                                           GradientBuilder &b) {
  Operation *op = r.op;
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    r.operandGrads[0] = b.reshape(r.resultGrads[0],
                                  GradientBuilder::shapeOf(reshape.getInput()));
    return success();
  }
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    ArrayRef<int64_t> perm = transpose.getPerm();
    SmallVector<int64_t> inverse(perm.size());
    for (auto [i, d] : llvm::enumerate(perm))
      inverse[d] = i;
    r.operandGrads[0] = b.transpose(r.resultGrads[0], inverse);
    return success();
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    r.operandGrads[0] = padSlice(b, r.resultGrads[0], slice.getOffsets(),
                                 GradientBuilder::shapeOf(slice.getInput()));
    return success();
  }
  if (auto split = dyn_cast<SplitOp>(op)) {
    // A piece without a gradient contributes zeros.
    SmallVector<Value> pieces;
    for (auto [result, grad] : llvm::zip(split.getResults(), r.resultGrads))
      pieces.push_back(grad ? grad
                            : b.splat(GradientBuilder::typeOf(result), 0.0));
    r.operandGrads[0] = concat(b, pieces, split.getAxis());
    return success();
  }
  if (auto concatOp = dyn_cast<ConcatOp>(op)) {
    int64_t axis = concatOp.getAxis(), offset = 0;
    Value g = r.resultGrads[0];
    for (auto [i, input] : llvm::enumerate(concatOp.getInputs())) {
      RankedTensorType type = GradientBuilder::typeOf(input);
      if (r.wanted[i]) {
        SmallVector<int64_t> offsets(type.getRank(), 0);
        offsets[axis] = offset;
        r.operandGrads[i] =
            SliceOp::create(b.getBuilder(), b.getLoc(), type, g, offsets);
      }
      offset += type.getDimSize(axis);
    }
    return success();
  }
  if (auto rope = dyn_cast<RopeOp>(op)) {
    // y = scale R(theta) x per rotated pair, R orthogonal: dx = scale
    // R(-theta) dy, the same rope with the frequencies negated.
    if (r.wanted[1])
      return LogicalResult(op->emitOpError()
                           << "has no gradient for its frequencies (inv_freq "
                              "is a constant of the model)");
    Value invFreq = rope.getInvFreq();
    Value negated;
    auto constant = invFreq.getDefiningOp<ConstantOp>();
    auto values = constant ? dyn_cast<DenseFPElementsAttr>(constant.getValue())
                           : DenseFPElementsAttr();
    if (values)
      negated = ConstantOp::create(
          b.getBuilder(), b.getLoc(),
          values.mapValues(values.getElementType(), [](const APFloat &f) {
            APFloat negative = f;
            negative.changeSign();
            return negative.bitcastToAPInt();
          }));
    else
      negated = b.unary<NegOp>(invFreq);
    r.operandGrads[0] =
        RopeOp::create(b.getBuilder(), b.getLoc(), r.resultGrads[0], negated,
                       rope.getAttentionScalingAttr());
    return success();
  }
  if (auto gather = dyn_cast<GatherOp>(op)) {
    // The indices are integers (no gradient); the table's rows sum the
    // gradients of the positions that read them.
    if (r.wanted[0])
      r.operandGrads[0] = GatherGradOp::create(
          b.getBuilder(), b.getLoc(), gather.getTable().getType(),
          r.resultGrads[0], gather.getIndices());
    return success();
  }
  return std::nullopt;
}
