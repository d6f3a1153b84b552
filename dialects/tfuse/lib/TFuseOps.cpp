//===- TFuseOps.cpp - tfuse op verifiers and helpers ------------*- C++ -*-===//
//
// Verifiers of the tfuse operations. Every message here is exercised by
// test/Dialect/TFuse/invalid.mlir.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TFuseOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tfuse;

#include "tfuse/Dialect/TFuse/TFuseEnums.cpp.inc"

//===----------------------------------------------------------------------===//
// Shape helpers
//===----------------------------------------------------------------------===//

std::string mlir::tfuse::formatShape(ArrayRef<int64_t> shape) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(shape, os);
  os << "]";
  return text;
}

std::optional<SmallVector<int64_t>>
mlir::tfuse::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1)
      return std::nullopt;
    result[rank - 1 - i] = da == 1 ? db : da;
  }
  return result;
}

static RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// Checks that every value has the element type of the first one.
static LogicalResult verifySameElementType(Operation *op, ValueRange values,
                                           StringRef what) {
  if (values.empty())
    return success();
  Type element = tensorType(values.front()).getElementType();
  for (Value value : values.drop_front())
    if (tensorType(value).getElementType() != element)
      return op->emitOpError()
             << "requires " << what << " to have the same element type, got "
             << element << " and " << tensorType(value).getElementType();
  return success();
}

/// Checks a user-given axis against a rank.
static LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank) {
  if (axis < 0 || axis >= rank)
    return op->emitOpError()
           << "axis " << axis << " is out of range for a tensor of rank "
           << rank;
  return success();
}

static LogicalResult verifyResultShape(Operation *op, ArrayRef<int64_t> actual,
                                       ArrayRef<int64_t> expected) {
  if (actual != expected)
    return op->emitOpError()
           << "result shape " << formatShape(actual)
           << " does not match the expected shape " << formatShape(expected);
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

int64_t MatmulOp::getM() {
  ArrayRef<int64_t> shape = getLhs().getType().getShape();
  return getTransposeLhs() ? shape.back() : shape[shape.size() - 2];
}

int64_t MatmulOp::getK() {
  ArrayRef<int64_t> shape = getLhs().getType().getShape();
  return getTransposeLhs() ? shape[shape.size() - 2] : shape.back();
}

int64_t MatmulOp::getN() {
  ArrayRef<int64_t> shape = getRhs().getType().getShape();
  return getTransposeRhs() ? shape[shape.size() - 2] : shape.back();
}

LogicalResult MatmulOp::verify() {
  ArrayRef<int64_t> lhs = getLhs().getType().getShape();
  ArrayRef<int64_t> rhs = getRhs().getType().getShape();
  if (lhs.size() < 2 || rhs.size() < 2)
    return emitOpError() << "requires operands of rank >= 2, got ranks "
                         << lhs.size() << " and " << rhs.size();
  if (failed(verifySameElementType(*this, {getLhs(), getRhs(), getResult()},
                                   "operands and result")))
    return failure();
  if (getTf32() && !getLhs().getType().getElementType().isF32())
    return emitOpError() << "multiplies in TF32 only f32 operands, got "
                         << getLhs().getType().getElementType();
  int64_t rhsK = getTransposeRhs() ? rhs.back() : rhs[rhs.size() - 2];
  if (getK() != rhsK)
    return emitOpError() << "contraction sizes differ: lhs has K = " << getK()
                         << ", rhs has K = " << rhsK;
  std::optional<SmallVector<int64_t>> batch =
      broadcastShapes(lhs.drop_back(2), rhs.drop_back(2));
  if (!batch)
    return emitOpError() << "batch dimensions " << formatShape(lhs.drop_back(2))
                         << " and " << formatShape(rhs.drop_back(2))
                         << " are not broadcast-compatible";
  SmallVector<int64_t> expected = *batch;
  expected.push_back(getM());
  expected.push_back(getN());
  return verifyResultShape(*this, getResult().getType().getShape(), expected);
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

static LogicalResult verifyBroadcastBinary(Operation *op) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  Value result = op->getResult(0);
  if (failed(
          verifySameElementType(op, {lhs, rhs, result}, "operands and result")))
    return failure();
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(tensorType(lhs).getShape(), tensorType(rhs).getShape());
  if (!shape)
    return op->emitOpError()
           << "operand shapes " << formatShape(tensorType(lhs).getShape())
           << " and " << formatShape(tensorType(rhs).getShape())
           << " are not broadcast-compatible";
  return verifyResultShape(op, tensorType(result).getShape(), *shape);
}

LogicalResult AddOp::verify() { return verifyBroadcastBinary(*this); }
LogicalResult SubOp::verify() { return verifyBroadcastBinary(*this); }
LogicalResult MulOp::verify() { return verifyBroadcastBinary(*this); }
LogicalResult DivOp::verify() { return verifyBroadcastBinary(*this); }
LogicalResult MaxOp::verify() { return verifyBroadcastBinary(*this); }
LogicalResult MinOp::verify() { return verifyBroadcastBinary(*this); }

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  return verifyResultShape(*this, getResult().getType().getShape(),
                           getInput().getType().getShape());
}

//===----------------------------------------------------------------------===//
// Reductions and normalisations
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  ArrayRef<int64_t> shape = getInput().getType().getShape();
  if (failed(verifyAxis(*this, getAxis(), shape.size())) ||
      failed(verifySameElementType(*this, {getInput(), getResult()},
                                   "input and result")))
    return failure();
  SmallVector<int64_t> expected(shape);
  if (getKeepDims())
    expected[getAxis()] = 1;
  else
    expected.erase(expected.begin() + getAxis());
  return verifyResultShape(*this, getResult().getType().getShape(), expected);
}

LogicalResult SoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getInput().getType().getRank());
}

/// Checks the optional per-channel parameter of a normalisation: shape [D].
static LogicalResult verifyNormParameter(Operation *op, Value input,
                                         Value param, StringRef name) {
  if (!param)
    return success();
  int64_t channels = tensorType(input).getShape().back();
  ArrayRef<int64_t> shape = tensorType(param).getShape();
  if (shape.size() != 1 || shape[0] != channels)
    return op->emitOpError()
           << "requires " << name << " of shape [" << channels
           << "] (the normalised last dimension), got " << formatShape(shape);
  if (tensorType(param).getElementType() != tensorType(input).getElementType())
    return op->emitOpError()
           << "requires " << name << " to have the input's element type";
  return success();
}

static LogicalResult verifyNorm(Operation *op, Value input, Value result,
                                double epsilon) {
  if (tensorType(input).getRank() < 1)
    return op->emitOpError() << "requires an input of rank >= 1";
  if (input.getType() != result.getType())
    return op->emitOpError() << "requires the result type to equal the "
                                "input type";
  if (!(epsilon > 0.0) || !std::isfinite(epsilon))
    return op->emitOpError() << "requires a positive epsilon, got " << epsilon;
  return success();
}

LogicalResult LayerNormOp::verify() {
  if (failed(verifyNorm(*this, getInput(), getResult(),
                        getEpsilon().convertToDouble())))
    return failure();
  if (failed(verifyNormParameter(*this, getInput(), getGamma(), "gamma")))
    return failure();
  return verifyNormParameter(*this, getInput(), getBeta(), "beta");
}

LogicalResult RmsNormOp::verify() {
  if (failed(verifyNorm(*this, getInput(), getResult(),
                        getEpsilon().convertToDouble())))
    return failure();
  return verifyNormParameter(*this, getInput(), getGamma(), "gamma");
}

LogicalResult NormGradOp::verify() {
  if (failed(verifyNorm(*this, getInput(), getResult(),
                        getEpsilon().convertToDouble())))
    return failure();
  if (getOutputGrad().getType() != getInput().getType())
    return emitOpError() << "requires output_grad of the input's type "
                         << getInput().getType() << ", got "
                         << getOutputGrad().getType();
  SmallVector<int64_t> rowShape(tensorType(getInput()).getShape());
  rowShape.back() = 1;
  for (Value stat : {getMean(), getRstd()})
    if (failed(verifyResultShape(*this, tensorType(stat).getShape(), rowShape)))
      return failure();
  return verifyNormParameter(*this, getInput(), getGamma(), "gamma");
}

//===----------------------------------------------------------------------===//
// DropoutOp
//===----------------------------------------------------------------------===//

static LogicalResult verifyProbability(Operation *op, StringRef name,
                                       double p) {
  if (!(p >= 0.0 && p < 1.0))
    return op->emitOpError() << "requires " << name << " in [0, 1), got " << p;
  return success();
}

/// Checks a dropout seed: the mask's random stream is keyed by its unsigned
/// value, and a bundle's reference graph refuses a negative one.
static LogicalResult verifySeed(Operation *op, IntegerAttr seed) {
  if (seed.getValue().isNegative())
    return op->emitOpError() << "requires a non-negative seed, got "
                             << seed.getValue().getSExtValue();
  return success();
}

LogicalResult DropoutOp::verify() {
  if (failed(verifyProbability(*this, "p", getP().convertToDouble())))
    return failure();
  return verifySeed(*this, getSeedAttr());
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

/// Checks a loss's logits ([..., V], V >= 1) against its per-row values
/// (`labels` and each of `rows`, shape [...]).
static LogicalResult verifyLossRows(Operation *op, Value logits, Value labels,
                                    ValueRange rows) {
  ArrayRef<int64_t> shape = tensorType(logits).getShape();
  if (shape.empty() || shape.back() == 0)
    return op->emitOpError()
           << "requires logits of rank >= 1 with at least one class, got "
           << formatShape(shape);
  ArrayRef<int64_t> expected = shape.drop_back();
  if (tensorType(labels).getShape() != expected)
    return op->emitOpError()
           << "requires labels of shape " << formatShape(expected)
           << " (the logits' shape without the class axis), got "
           << formatShape(tensorType(labels).getShape());
  for (Value row : rows)
    if (failed(verifyResultShape(op, tensorType(row).getShape(), expected)))
      return failure();
  return success();
}

LogicalResult CrossEntropyOp::verify() {
  return verifyLossRows(*this, getLogits(), getLabels(),
                        {getLoss(), getCounted()});
}

LogicalResult CrossEntropyGradOp::verify() {
  if (tensorType(getLossGrad()).getShape() !=
      tensorType(getLabels()).getShape())
    return emitOpError() << "requires loss_grad of the labels' shape "
                         << formatShape(tensorType(getLabels()).getShape())
                         << ", got "
                         << formatShape(tensorType(getLossGrad()).getShape());
  if (getResult().getType() != getLogits().getType())
    return emitOpError() << "requires a result of the logits' type "
                         << getLogits().getType() << ", got "
                         << getResult().getType();
  return verifyLossRows(*this, getLogits(), getLabels(), {});
}

//===----------------------------------------------------------------------===//
// Layout ops
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  RankedTensorType input = tensorType(getInput()),
                   result = tensorType(getResult());
  if (failed(verifySameElementType(*this, {getInput(), getResult()},
                                   "input and result")))
    return failure();
  // Counts too large for int64 are left to the size check (verifyCostFits).
  std::optional<int64_t> from = checkedProduct(input.getShape()).get(),
                         to = checkedProduct(result.getShape()).get();
  if (from && to && *from != *to)
    return emitOpError() << "cannot reshape " << *from << " elements into "
                         << *to;
  return success();
}

LogicalResult TransposeOp::verify() {
  ArrayRef<int64_t> perm = getPerm();
  ArrayRef<int64_t> shape = getInput().getType().getShape();
  if (failed(verifySameElementType(*this, {getInput(), getResult()},
                                   "input and result")))
    return failure();
  if (perm.size() != shape.size())
    return emitOpError() << "requires a permutation of " << shape.size()
                         << " dimensions, got " << perm.size();
  llvm::SmallBitVector seen(perm.size());
  for (int64_t dim : perm) {
    if (dim < 0 || dim >= static_cast<int64_t>(perm.size()) || seen[dim])
      return emitOpError() << formatShape(perm)
                           << " is not a permutation of [0, " << perm.size()
                           << ")";
    seen.set(dim);
  }
  SmallVector<int64_t> expected;
  for (int64_t dim : perm)
    expected.push_back(shape[dim]);
  return verifyResultShape(*this, getResult().getType().getShape(), expected);
}

LogicalResult SliceOp::verify() {
  ArrayRef<int64_t> offsets = getOffsets();
  ArrayRef<int64_t> shape = getInput().getType().getShape();
  ArrayRef<int64_t> sizes = getResult().getType().getShape();
  if (failed(verifySameElementType(*this, {getInput(), getResult()},
                                   "input and result")))
    return failure();
  if (offsets.size() != shape.size() || sizes.size() != shape.size())
    return emitOpError() << "requires offsets and a result of the input's rank "
                         << shape.size();
  for (auto [dim, offset] : llvm::enumerate(offsets))
    if (offset < 0 || offset + sizes[dim] > shape[dim])
      return emitOpError() << "slice [" << offset << ", " << offset + sizes[dim]
                           << ") of dimension " << dim << " exceeds its size "
                           << shape[dim];
  return success();
}

/// Shared by split and concat: `whole` is split along `axis` into `parts`.
static LogicalResult verifyPieces(Operation *op, Value whole, ValueRange parts,
                                  int64_t axis) {
  if (parts.empty())
    return op->emitOpError() << "requires at least one piece";
  ArrayRef<int64_t> shape = tensorType(whole).getShape();
  if (failed(verifyAxis(op, axis, shape.size())))
    return failure();
  SmallVector<Value> all{whole};
  llvm::append_range(all, parts);
  if (failed(verifySameElementType(op, all, "all tensors")))
    return failure();
  int64_t total = 0;
  for (Value part : parts) {
    ArrayRef<int64_t> partShape = tensorType(part).getShape();
    SmallVector<int64_t> expected(shape);
    expected[axis] = partShape.size() == shape.size() ? partShape[axis] : 0;
    if (partShape != ArrayRef<int64_t>(expected))
      return op->emitOpError() << "piece of shape " << formatShape(partShape)
                               << " must match " << formatShape(shape)
                               << " in every dimension but the axis " << axis;
    total += partShape[axis];
  }
  if (total != shape[axis])
    return op->emitOpError() << "pieces add up to " << total << " along axis "
                             << axis << ", expected " << shape[axis];
  return success();
}

LogicalResult SplitOp::verify() {
  return verifyPieces(*this, getInput(), getResults(), getAxis());
}

LogicalResult ConcatOp::verify() {
  return verifyPieces(*this, getResult(), getInputs(), getAxis());
}

LogicalResult GatherOp::verify() {
  ArrayRef<int64_t> table = getTable().getType().getShape();
  if (table.empty())
    return emitOpError() << "requires a table of rank >= 1";
  // Indices clamp into the table, so there must be a row to clamp to.
  if (table.front() == 0)
    return emitOpError() << "requires a table with at least one row";
  if (failed(verifySameElementType(*this, {getTable(), getResult()},
                                   "table and result")))
    return failure();
  SmallVector<int64_t> expected(getIndices().getType().getShape());
  llvm::append_range(expected, table.drop_front());
  return verifyResultShape(*this, getResult().getType().getShape(), expected);
}

LogicalResult GatherGradOp::verify() {
  ArrayRef<int64_t> table = getResult().getType().getShape();
  if (table.empty())
    return emitOpError() << "requires a result (the table) of rank >= 1";
  // As tfuse.gather: indices clamp into the table's rows.
  if (table.front() == 0)
    return emitOpError() << "requires a result (the table) with at least "
                            "one row";
  if (failed(verifySameElementType(*this, {getGrad(), getResult()},
                                   "grad and result")))
    return failure();
  SmallVector<int64_t> expected(getIndices().getType().getShape());
  llvm::append_range(expected, table.drop_front());
  ArrayRef<int64_t> grad = getGrad().getType().getShape();
  if (grad != ArrayRef<int64_t>(expected))
    return emitOpError() << "grad shape " << formatShape(grad)
                         << " does not match the gather's result shape "
                         << formatShape(expected)
                         << " (the indices' shape, then the table's after "
                            "its rows)";
  return success();
}

LogicalResult CausalMaskOp::verify() {
  if (getResult().getType().getRank() != 2)
    return emitOpError() << "requires a result of rank 2 ([rows, cols]), got "
                         << getResult().getType().getRank();
  return success();
}

//===----------------------------------------------------------------------===//
// RopeOp and WindowMaskOp
//===----------------------------------------------------------------------===//

LogicalResult RopeOp::verify() {
  ArrayRef<int64_t> shape = getInput().getType().getShape();
  if (shape.size() < 2)
    return emitOpError() << "requires an input of rank >= 2 ([..., S, D]), got "
                         << shape.size();
  RankedTensorType invFreq = getInvFreq().getType();
  if (invFreq.getRank() != 1 || invFreq.getNumElements() == 0)
    return emitOpError() << "requires inv_freq of rank 1 with at least one "
                            "frequency, got "
                         << invFreq;
  if (getRotaryDim() > shape.back())
    return emitOpError() << "rotates " << getRotaryDim()
                         << " dims (2 x size of inv_freq) but the last "
                            "dimension has "
                         << shape.back();
  double scaling = getAttentionScaling().convertToDouble();
  if (!std::isfinite(scaling) || scaling <= 0.0)
    return emitOpError()
           << "requires a positive, finite attention_scaling, got " << scaling;
  return success();
}

LogicalResult WindowMaskOp::verify() {
  if (getResult().getType().getRank() != 2)
    return emitOpError() << "requires a result of rank 2 ([rows, cols]), got "
                         << getResult().getType().getRank();
  if (getWindow() < 1)
    return emitOpError() << "requires a window of at least 1, got "
                         << getWindow();
  return success();
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

/// What tfuse.attention and tfuse.attention_grad share: the shapes of
/// query, key, value and mask, the element type of `sameElement`, scale and
/// dropout.
template <typename OpTy>
static LogicalResult verifyAttentionOperands(OpTy op,
                                             ArrayRef<Value> sameElement) {
  ArrayRef<int64_t> q = op.getQuery().getType().getShape();
  ArrayRef<int64_t> k = op.getKey().getType().getShape();
  ArrayRef<int64_t> v = op.getValue().getType().getShape();
  if (q.size() != 4 || k.size() != 4 || v.size() != 4)
    return op.emitOpError() << "requires query, key and value of rank 4 "
                               "([batch, heads, seq, head_dim])";
  SmallVector<Value> all(sameElement);
  if (op.getMask())
    all.push_back(op.getMask());
  if (failed(verifySameElementType(op, all, "all tensors")))
    return failure();
  if (q[0] != k[0] || q[0] != v[0])
    return op.emitOpError() << "requires one batch size, got " << q[0] << ", "
                            << k[0] << " and " << v[0];
  if (k[1] != v[1] || k[2] != v[2])
    return op.emitOpError() << "requires key and value with the same heads "
                               "and sequence length, got "
                            << formatShape(k) << " and " << formatShape(v);
  if (k[1] == 0)
    return op.emitOpError() << "requires at least one key/value head";
  if (q[1] % k[1] != 0)
    return op.emitOpError()
           << "requires the query heads (" << q[1]
           << ") to be a multiple of the key/value heads (" << k[1] << ")";
  if (q[3] != k[3])
    return op.emitOpError() << "requires query and key head dims to match, got "
                            << q[3] << " and " << k[3];
  SmallVector<int64_t> scores{q[0], q[1], q[2], k[2]};
  if (op.getMask()) {
    ArrayRef<int64_t> mask = op.getMask().getType().getShape();
    std::optional<SmallVector<int64_t>> shape = broadcastShapes(mask, scores);
    if (!shape || ArrayRef<int64_t>(*shape) != ArrayRef<int64_t>(scores))
      return op.emitOpError() << "mask of shape " << formatShape(mask)
                              << " does not broadcast to the scores' shape "
                              << formatShape(scores);
  }
  double scale = op.getScale().convertToDouble();
  if (!(scale > 0.0) || !std::isfinite(scale))
    return op.emitOpError() << "requires a positive scale, got " << scale;
  if (op.getDropoutP().has_value() != op.getSeed().has_value())
    return op.emitOpError() << "requires dropout_p and seed together";
  if (op.getDropoutP() &&
      (failed(verifyProbability(op, "dropout_p",
                                op.getDropoutP()->convertToDouble())) ||
       failed(verifySeed(op, op.getSeedAttr()))))
    return failure();
  return success();
}

/// The row statistics `value` (lse, delta): f32 [B, H, Sq].
static LogicalResult verifyRowStatistic(Operation *op, StringRef name,
                                        Value value, ArrayRef<int64_t> q) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.getElementType().isF32() ||
      type.getShape() != ArrayRef<int64_t>{q[0], q[1], q[2]})
    return op->emitOpError()
           << "requires " << name << " of type tensor<" << q[0] << "x" << q[1]
           << "x" << q[2] << "xf32> ([batch, heads, query seq]), got " << type;
  return success();
}

/// Numbered results, as every other op's: its optional second result must
/// not rename the first.
void AttentionOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {}

LogicalResult AttentionOp::verify() {
  if (failed(verifyAttentionOperands(
          *this, {getQuery(), getKey(), getValue(), getResult()})))
    return failure();
  ArrayRef<int64_t> q = getQuery().getType().getShape();
  ArrayRef<int64_t> v = getValue().getType().getShape();
  if (getLse() && failed(verifyRowStatistic(*this, "lse", getLse(), q)))
    return failure();
  return verifyResultShape(*this, getResult().getType().getShape(),
                           {q[0], q[1], q[2], v[3]});
}

//===----------------------------------------------------------------------===//
// AttentionGradOp
//===----------------------------------------------------------------------===//

LogicalResult AttentionGradOp::verify() {
  if (failed(verifyAttentionOperands(*this, {getQuery(), getKey(), getValue(),
                                             getOutGrad(), getQueryGrad(),
                                             getKeyGrad(), getValueGrad()})))
    return failure();
  ArrayRef<int64_t> q = getQuery().getType().getShape();
  ArrayRef<int64_t> v = getValue().getType().getShape();
  ArrayRef<int64_t> outGrad = getOutGrad().getType().getShape();
  if (outGrad != ArrayRef<int64_t>{q[0], q[1], q[2], v[3]})
    return emitOpError() << "requires out_grad of the attention's output "
                            "shape "
                         << formatShape({q[0], q[1], q[2], v[3]}) << ", got "
                         << formatShape(outGrad);
  if (failed(verifyRowStatistic(*this, "lse", getLse(), q)) ||
      failed(verifyRowStatistic(*this, "delta", getDelta(), q)))
    return failure();
  for (auto [grad, operand] :
       llvm::zip(getResults(), ValueRange{getQuery(), getKey(), getValue()}))
    if (grad.getType() != operand.getType())
      return emitOpError() << "requires each gradient of the type of its "
                              "operand, got "
                           << grad.getType() << " for " << operand.getType();
  return success();
}

//===----------------------------------------------------------------------===//
// FusionOp
//===----------------------------------------------------------------------===//

YieldOp FusionOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

LogicalResult FusionOp::verify() {
  Block &body = getBody().front();
  if (getNumResults() == 0)
    return emitOpError() << "requires at least one result";
  if (!llvm::equal(body.getArgumentTypes(), getInputs().getTypes()))
    return emitOpError() << "requires the region's arguments to have the "
                            "types of the inputs";
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError() << "requires the region to end in tfuse.yield";
  if (!llvm::equal(yield.getValues().getTypes(), getResultTypes()))
    return emitOpError() << "requires tfuse.yield to give the result types";
  for (Operation &member : body.without_terminator())
    if (auto cost = dyn_cast<CostOpInterface>(member);
        cost && cost.getOpClass() == OpClass::Collective)
      return emitOpError() << "cannot hold " << member.getName()
                           << ": a collective runs between GPUs, not inside "
                              "a kernel";

  // The bookkeeping: all five or none (bytes are checked by their type).
  int numBookkeeping = bool(getBytesBeforeAttr()) + bool(getBytesAfterAttr()) +
                       bool(getPredictedUnfusedUsAttr()) +
                       bool(getPredictedFusedUsAttr()) + bool(getTargetAttr());
  if (numBookkeeping != 0 && numBookkeeping != 5)
    return emitOpError() << "requires bytes_before, bytes_after, "
                            "predicted_unfused_us, predicted_fused_us and "
                            "target together";
  for (FloatAttr time :
       {getPredictedUnfusedUsAttr(), getPredictedFusedUsAttr()}) {
    double us = time ? time.getValueAsDouble() : 0.0;
    if (!std::isfinite(us) || us < 0.0)
      return emitOpError() << "requires predicted times that are finite and "
                              "non-negative, got "
                           << us;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

static LogicalResult verifyGroupSize(Operation *op, int64_t groupSize) {
  if (groupSize < 1 || groupSize > kMaxGroupSize)
    return op->emitOpError() << "requires group_size (the number of ranks) "
                                "in [1, "
                             << kMaxGroupSize << "], got " << groupSize;
  return success();
}

LogicalResult AllReduceOp::verify() {
  return verifyGroupSize(*this, getGroupSize());
}

/// reduce_scatter (`scatter`: the axis shrinks by group_size) and
/// all_gather (it grows by group_size).
static LogicalResult verifyShardedCollective(Operation *op, Value input,
                                             Value result, int64_t axis,
                                             int64_t groupSize, bool scatter) {
  if (failed(verifyGroupSize(op, groupSize)))
    return failure();
  ArrayRef<int64_t> shape = tensorType(input).getShape();
  if (shape.empty())
    return op->emitOpError() << "requires an input of rank >= 1";
  if (failed(verifyAxis(op, axis, shape.size())) ||
      failed(verifySameElementType(op, {input, result}, "input and result")))
    return failure();
  SmallVector<int64_t> expected(shape);
  if (scatter) {
    if (shape[axis] % groupSize != 0)
      return op->emitOpError()
             << "requires the input's size along axis " << axis << " ("
             << shape[axis] << ") to be a multiple of group_size (" << groupSize
             << ")";
    expected[axis] = shape[axis] / groupSize;
  } else {
    std::optional<int64_t> gathered =
        (CheckedInt(shape[axis]) * groupSize).get();
    if (!gathered)
      return op->emitOpError()
             << "gathers more than an int64 can count along axis " << axis;
    expected[axis] = *gathered;
  }
  return verifyResultShape(op, tensorType(result).getShape(), expected);
}

LogicalResult ReduceScatterOp::verify() {
  return verifyShardedCollective(*this, getInput(), getResult(), getAxis(),
                                 getGroupSize(), /*scatter=*/true);
}

LogicalResult AllGatherOp::verify() {
  return verifyShardedCollective(*this, getInput(), getResult(), getAxis(),
                                 getGroupSize(), /*scatter=*/false);
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

/// Checks the tensors every optimizer update shares: f32 `param` and
/// `state` of param's shape, a float `grad` of that shape, rank-0 f32 `lr`
/// and `step`, f32 results of param's shape for param and the state, and
/// an optional f16 or bf16 model weight of param's shape.
static LogicalResult verifyOptimizerTensors(Operation *op, Value param,
                                            Value grad, ArrayRef<Value> state,
                                            ArrayRef<StringRef> stateNames,
                                            Value lr, Value step,
                                            ArrayRef<Value> updated,
                                            Value modelWeight) {
  ArrayRef<int64_t> shape = tensorType(param).getShape();
  auto checkF32 = [&](Value value, StringRef name) -> LogicalResult {
    if (!tensorType(value).getElementType().isF32())
      return op->emitOpError() << "requires " << name << " to be f32, got "
                               << tensorType(value).getElementType();
    return success();
  };
  auto checkShape = [&](Value value, StringRef name) -> LogicalResult {
    if (tensorType(value).getShape() != shape)
      return op->emitOpError() << "requires " << name << " of param's shape "
                               << formatShape(shape) << ", got "
                               << formatShape(tensorType(value).getShape());
    return success();
  };
  if (failed(checkF32(param, "param")) || failed(checkShape(grad, "grad")))
    return failure();
  for (auto [value, name] : llvm::zip_equal(state, stateNames))
    if (failed(checkF32(value, name)) || failed(checkShape(value, name)))
      return failure();
  for (auto [value, name] : {std::pair(lr, "lr"), std::pair(step, "step")})
    if (tensorType(value).getRank() != 0 ||
        !tensorType(value).getElementType().isF32())
      return op->emitOpError()
             << "requires " << name << " to be a rank-0 f32 tensor, got "
             << value.getType();
  for (auto [index, value] : llvm::enumerate(updated)) {
    std::string name = "result #" + std::to_string(index);
    if (failed(checkF32(value, name)) || failed(checkShape(value, name)))
      return failure();
  }
  if (!modelWeight)
    return success();
  Type element = tensorType(modelWeight).getElementType();
  if (!element.isBF16() && !element.isF16())
    return op->emitOpError()
           << "requires the model weight to be f16 or bf16, got " << element;
  return checkShape(modelWeight, "the model weight");
}

/// Checks that `value` is finite and in [low, high) (`closed`: [low, high]).
static LogicalResult verifyHyperparameter(Operation *op, StringRef name,
                                          double value, double low, double high,
                                          bool closed, StringRef range) {
  bool inside = std::isfinite(value) && value >= low &&
                (closed ? value <= high : value < high);
  if (!inside)
    return op->emitOpError()
           << "requires " << name << " in " << range << ", got " << value;
  return success();
}

static constexpr double kInf = std::numeric_limits<double>::infinity();

LogicalResult AdamWOp::verify() {
  if (failed(verifyOptimizerTensors(
          *this, getParam(), getGrad(), {getExpAvg(), getExpAvgSq()},
          {"exp_avg", "exp_avg_sq"}, getLr(), getStep(),
          {getNewParam(), getNewExpAvg(), getNewExpAvgSq()}, getModelWeight())))
    return failure();
  if (failed(verifyHyperparameter(*this, "beta1", getBeta1().convertToDouble(),
                                  0.0, 1.0, false, "[0, 1)")) ||
      failed(verifyHyperparameter(*this, "beta2", getBeta2().convertToDouble(),
                                  0.0, 1.0, false, "[0, 1)")) ||
      failed(verifyHyperparameter(*this, "weight_decay",
                                  getWeightDecay().convertToDouble(), 0.0, kInf,
                                  false, "[0, inf)")))
    return failure();
  double eps = getEpsilon().convertToDouble();
  if (!(std::isfinite(eps) && eps > 0.0))
    return emitOpError() << "requires eps > 0 and finite, got " << eps;
  return success();
}

LogicalResult SgdOp::verify() {
  if (failed(verifyOptimizerTensors(
          *this, getParam(), getGrad(), {getMomentumBuffer()},
          {"momentum_buffer"}, getLr(), getStep(),
          {getNewParam(), getNewMomentumBuffer()}, getModelWeight())))
    return failure();
  double momentum = getMomentum().convertToDouble();
  if (!(std::isfinite(momentum) && momentum > 0.0))
    return emitOpError() << "requires momentum > 0 and finite, got "
                         << momentum;
  double dampening = getDampening().convertToDouble();
  if (failed(verifyHyperparameter(*this, "dampening", dampening, 0.0, 1.0, true,
                                  "[0, 1]")) ||
      failed(verifyHyperparameter(*this, "weight_decay",
                                  getWeightDecay().convertToDouble(), 0.0, kInf,
                                  false, "[0, inf)")))
    return failure();
  if (getNesterov() && dampening != 0.0)
    return emitOpError() << "requires dampening = 0 with nesterov, got "
                         << dampening;
  return success();
}

#define GET_OP_CLASSES
#include "tfuse/Dialect/TFuse/TFuseOps.cpp.inc"

void mlir::tfuse::inlineFusion(FusionOp fusion) {
  OpBuilder builder(fusion);
  IRMapping mapping;
  mapping.map(fusion.getBody().getArguments(), fusion.getInputs());
  for (Operation &op : fusion.getBody().front().without_terminator())
    builder.clone(op, mapping);
  SmallVector<Value> results;
  for (Value value : fusion.getYield().getValues())
    results.push_back(mapping.lookup(value));
  fusion->replaceAllUsesWith(results);
  fusion->erase();
}
