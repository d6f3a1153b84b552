//===- GradientBuilder.cpp - helpers of the backward rules ------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "GradientBuilder.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::tfuse;
using namespace mlir::tfuse::autodiff;

SmallVector<int64_t> autodiff::broadcastShapes(ArrayRef<int64_t> a,
                                               ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> shape(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    shape[i] = x == 1 ? y : x;
  }
  return shape;
}

Type GradientBuilder::broadcastType(Value lhs, Value rhs) {
  return RankedTensorType::get(broadcastShapes(shapeOf(lhs), shapeOf(rhs)),
                               typeOf(lhs).getElementType());
}

Value GradientBuilder::scalar(Type element, double value) {
  return splat(RankedTensorType::get({}, element), value);
}

Value GradientBuilder::splat(RankedTensorType type, double value) {
  FloatAttr attr = builder.getFloatAttr(type.getElementType(), value);
  return ConstantOp::create(builder, loc,
                            DenseElementsAttr::get(type, attr.getValue()));
}

Value GradientBuilder::scale(Value value, double factor) {
  return mul(value, scalar(typeOf(value).getElementType(), factor));
}

Value GradientBuilder::reduce(ReduceKind kind, Value value, int64_t axis,
                              bool keepDims) {
  SmallVector<int64_t> shape(shapeOf(value));
  if (keepDims)
    shape[axis] = 1;
  else
    shape.erase(shape.begin() + axis);
  auto type = RankedTensorType::get(shape, typeOf(value).getElementType());
  return ReduceOp::create(builder, loc, type, kind, value, axis, keepDims);
}

Value GradientBuilder::sumToShape(Value value, ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> from = shapeOf(value);
  if (from == shape)
    return value;
  // Leading dimensions the operand lacks: flatten them into one and sum it.
  size_t extra = from.size() - shape.size();
  if (extra > 0) {
    int64_t lead = 1;
    for (size_t i = 0; i < extra; ++i)
      lead *= from[i];
    SmallVector<int64_t> flat{lead};
    llvm::append_range(flat, from.drop_front(extra));
    value = sumLeadingAxis(reshape(value, flat));
  }
  // Dimensions of size 1 in the operand: each run of neighbouring ones is
  // summed by one reduce (one pass over the gradient, not one per axis).
  for (size_t i = 0; i < shape.size(); ++i) {
    SmallVector<int64_t> current(shapeOf(value));
    if (shape[i] != 1 || current[i] == 1)
      continue;
    size_t end = i;
    int64_t extent = 1;
    for (; end < shape.size() && shape[end] == 1; ++end)
      extent *= current[end];
    SmallVector<int64_t> merged(current.begin(), current.begin() + i);
    merged.push_back(extent);
    merged.append(current.begin() + end, current.end());
    value = reduce(ReduceKind::sum, reshape(value, merged), i, true);
    std::fill(current.begin() + i, current.begin() + end, 1);
    value = reshape(value, current);
    i = end - 1;
  }
  return value;
}

Value GradientBuilder::sumRows(Value value) {
  if (shapeOf(value).size() == 1)
    return value;
  return sumRowsOf({value}, [](ArrayRef<Value> v) { return v[0]; });
}

/// The rows of a block of a two-stage sum over `rows` rows: 128 (or 64,
/// 32) when there are at least 16 blocks, 0 (one reduce) otherwise.
static int64_t rowBlockOf(int64_t rows) {
  for (int64_t candidate : {128, 64, 32})
    if (rows % candidate == 0 && rows / candidate >= 16)
      return candidate;
  return 0;
}

Value GradientBuilder::sumBlocks(Value blocked) {
  // Partial sums in f32 at least (bf16 and f16 gradients round once, at the
  // end, as one reduce would).
  Type element = typeOf(blocked).getElementType();
  Type wide =
      element.getIntOrFloatBitWidth() < 32 ? builder.getF32Type() : element;
  Value partial = reduce(ReduceKind::sum, castTo(blocked, wide), 1, false);
  return castTo(reduce(ReduceKind::sum, partial, 0, false), element);
}

Value GradientBuilder::sumLeadingAxis(Value value) {
  ArrayRef<int64_t> shape = shapeOf(value);
  int64_t length = shape.front();
  int64_t block = shape.size() > 1 ? rowBlockOf(length) : 0;
  if (!block)
    return reduce(ReduceKind::sum, value, 0, false);
  SmallVector<int64_t> split{length / block, block};
  llvm::append_range(split, shape.drop_front());
  return sumBlocks(reshape(value, split));
}

Value GradientBuilder::sumRowsOf(
    ArrayRef<Value> operands, llvm::function_ref<Value(ArrayRef<Value>)> body) {
  ArrayRef<int64_t> shape = shapeOf(operands.front());
  int64_t length = typeOf(operands.front()).getNumElements() / shape.back();
  int64_t block = rowBlockOf(length);
  // Each operand as [rows, last] or, blocked, [rows / block, block, last].
  SmallVector<Value> views;
  for (Value operand : operands) {
    int64_t last = shapeOf(operand).back();
    views.push_back(block ? reshape(operand, {length / block, block, last})
                          : reshape(operand, {length, last}));
  }
  Value value = body(views);
  if (!block)
    return reduce(ReduceKind::sum, value, 0, false);
  return sumBlocks(value);
}

Value GradientBuilder::broadcastTo(Value value, ArrayRef<int64_t> shape) {
  if (shapeOf(value) == shape)
    return value;
  auto type = RankedTensorType::get(shape, typeOf(value).getElementType());
  return add(value, splat(type, 0.0));
}

Value GradientBuilder::reshape(Value value, ArrayRef<int64_t> shape) {
  if (shapeOf(value) == shape)
    return value;
  auto type = RankedTensorType::get(shape, typeOf(value).getElementType());
  return ReshapeOp::create(builder, loc, type, value);
}

Value GradientBuilder::transpose(Value value, ArrayRef<int64_t> perm) {
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return value;
  ArrayRef<int64_t> from = shapeOf(value);
  SmallVector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(from[d]);
  auto type = RankedTensorType::get(shape, typeOf(value).getElementType());
  return TransposeOp::create(builder, loc, type, value, perm);
}

Value GradientBuilder::castTo(Value value, Type element) {
  if (typeOf(value).getElementType() == element)
    return value;
  return CastOp::create(builder, loc, typeOf(value).clone(element), value);
}

Value GradientBuilder::matmul(Value lhs, bool transposeLhs, Value rhs,
                              bool transposeRhs) {
  ArrayRef<int64_t> a = shapeOf(lhs), b = shapeOf(rhs);
  int64_t m = transposeLhs ? a[a.size() - 1] : a[a.size() - 2];
  int64_t n = transposeRhs ? b[b.size() - 2] : b[b.size() - 1];
  SmallVector<int64_t> shape = broadcastShapes(a.drop_back(2), b.drop_back(2));
  shape.append({m, n});
  auto type = RankedTensorType::get(shape, typeOf(lhs).getElementType());
  return MatmulOp::create(builder, loc, type, lhs, rhs, transposeLhs,
                          transposeRhs);
}
