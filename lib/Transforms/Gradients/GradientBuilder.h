//===- GradientBuilder.h - backward rules of tfuse ops ----------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Private to tfuse-autodiff. The backward rules, one function per op family
// (ElementwiseGradients.cpp, ContractionGradients.cpp, NormGradients.cpp,
// LayoutGradients.cpp), build the gradients of an op's operands from the
// gradients of its results with the helpers of GradientBuilder.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_LIB_TRANSFORMS_GRADIENTS_GRADIENTBUILDER_H
#define TFUSE_LIB_TRANSFORMS_GRADIENTS_GRADIENTBUILDER_H

#include "tfuse/Dialect/TFuse/TFuseOps.h"

#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::tfuse::autodiff {

/// Builds tfuse ops at one insertion point and location. Every helper keeps
/// the element type of its operands.
class GradientBuilder {
public:
  GradientBuilder(OpBuilder &builder, Location loc)
      : builder(builder), loc(loc) {}

  OpBuilder &getBuilder() { return builder; }
  Location getLoc() const { return loc; }
  void setLoc(Location newLoc) { loc = newLoc; }

  /// A rank-0 constant of `element`.
  Value scalar(Type element, double value);
  /// A splat constant of `type`.
  Value splat(RankedTensorType type, double value);

  /// Elementwise ops; binary ones broadcast (numpy rules).
  template <typename OpTy> Value binary(Value lhs, Value rhs) {
    return OpTy::create(builder, loc, broadcastType(lhs, rhs), lhs, rhs);
  }
  template <typename OpTy> Value unary(Value input) {
    return OpTy::create(builder, loc, input);
  }
  Value add(Value a, Value b) { return binary<AddOp>(a, b); }
  Value sub(Value a, Value b) { return binary<SubOp>(a, b); }
  Value mul(Value a, Value b) { return binary<MulOp>(a, b); }
  Value div(Value a, Value b) { return binary<DivOp>(a, b); }
  /// `value * factor` with a rank-0 constant factor.
  Value scale(Value value, double factor);

  /// tfuse.reduce `kind` along `axis`.
  Value reduce(ReduceKind kind, Value value, int64_t axis, bool keepDims);
  /// Sums `value` down to `shape`, the shape of an operand that broadcast to
  /// value's shape: leading dimensions it lacks and dimensions where it has
  /// size 1 are summed away. Returns `value` when the shapes agree.
  Value sumToShape(Value value, ArrayRef<int64_t> shape);
  /// Sums every dimension but the last: [..., D] -> [D] (a column reduction).
  Value sumRows(Value value);
  /// The sum over axis 0 of `value`, in two stages (blocks of rows first,
  /// in f32) when the axis is long, as sumRowsOf.
  Value sumLeadingAxis(Value value);
  /// sumRows(body(operands)), with `body` built on the operands reshaped the
  /// way sumRows blocks the rows, so that its elementwise ops fuse into the
  /// first stage of the column sums instead of writing their product out.
  /// The operands are [..., D] or [..., 1] over the same leading dimensions.
  /// Many rows (bias and norm-weight gradients over every token) are summed
  /// in two stages, blocks of rows first, in f32: one reduce of a few long
  /// strided rows would leave most of the GPU idle.
  Value sumRowsOf(ArrayRef<Value> operands,
                  llvm::function_ref<Value(ArrayRef<Value>)> body);
  /// The sum over axes 1 and then 0 of `blocked`, [blocks, block, ...]:
  /// the two stages of sumLeadingAxis and sumRowsOf, partial sums in f32 at
  /// least, the result in `blocked`'s element type.
  Value sumBlocks(Value blocked);
  /// Broadcasts `value` to `shape`.
  Value broadcastTo(Value value, ArrayRef<int64_t> shape);

  Value reshape(Value value, ArrayRef<int64_t> shape);
  Value transpose(Value value, ArrayRef<int64_t> perm);
  Value castTo(Value value, Type element);
  /// tfuse.matmul with its result type: batch dimensions broadcast.
  Value matmul(Value lhs, bool transposeLhs, Value rhs, bool transposeRhs);

  static RankedTensorType typeOf(Value value) {
    return cast<RankedTensorType>(value.getType());
  }
  static ArrayRef<int64_t> shapeOf(Value value) {
    return typeOf(value).getShape();
  }

private:
  Type broadcastType(Value lhs, Value rhs);

  OpBuilder &builder;
  Location loc;
};

/// The numpy broadcast of two shapes (the verifiers guarantee it exists).
SmallVector<int64_t> broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b);

/// One op to differentiate: its result gradients (null where a result has
/// none; at least one is set) and the operand gradients to fill in (all
/// null on entry; an operand whose gradient is not wanted may stay null).
struct GradientRequest {
  Operation *op;
  ArrayRef<Value> resultGrads;
  /// Whether operand i needs a gradient (it depends on a differentiated
  /// argument).
  SmallVector<bool> wanted;
  SmallVector<Value> operandGrads;
};

/// The rules of each op family: nullopt when `request.op` is not in the
/// family, otherwise whether its gradient could be built (a failure has
/// emitted a diagnostic at the op).
std::optional<LogicalResult> differentiateElementwise(GradientRequest &request,
                                                      GradientBuilder &b);
std::optional<LogicalResult> differentiateContraction(GradientRequest &request,
                                                      GradientBuilder &b);
std::optional<LogicalResult> differentiateNorm(GradientRequest &request,
                                               GradientBuilder &b);
std::optional<LogicalResult> differentiateLayout(GradientRequest &request,
                                                 GradientBuilder &b);

/// Ops whose results are saved for the backward under every recompute
/// policy but `full`: contractions (matmul, attention).
bool isExpensiveToRecompute(Operation *op);

} // namespace mlir::tfuse::autodiff

#endif // TFUSE_LIB_TRANSFORMS_GRADIENTS_GRADIENTBUILDER_H
