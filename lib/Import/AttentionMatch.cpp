//===- AttentionMatch.cpp - decomposed attention to tfuse.attention -------===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements matchAttention() (see AttentionMatch.h).
//
// It matches the tfuse ops a front end has built rather than the front end's
// own nodes: by then the exporters' spellings are one form (Div or Mul by a
// scalar, Expand or copies for repeat_kv, a causal mask built by Where,
// Trilu or folded into a constant: all evaluated at import), so one matcher
// serves every exporter. It runs inside the front end, not as a tfuse-opt
// pass, because only the front end still knows a weight argument's contents
// (PyTorch's dynamo exporter writes the folded causal mask as an
// initializer), which decide `causal`.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Import/AttentionMatch.h"

#include "tfuse/Dialect/TFuse/TFuseOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfuse;

namespace {

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// The value of a one-element float constant, else nullopt.
std::optional<double> scalarConstant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto dense = dyn_cast<DenseFPElementsAttr>(constant.getValue());
  if (!dense || dense.getNumElements() != 1)
    return std::nullopt;
  return (*dense.getValues<APFloat>().begin()).convertToDouble();
}

/// `x` times a scalar constant that leaves its shape (`x * c`, `c * x` or
/// `x / c`): the other operand and the factor; else `value` and 1.
std::pair<Value, double> peelScale(Value value) {
  Operation *op = value.getDefiningOp();
  if (isa_and_nonnull<MulOp, DivOp>(op)) {
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    bool isDiv = isa<DivOp>(op);
    for (auto [x, c] : {std::pair(lhs, rhs), std::pair(rhs, lhs)}) {
      if (isDiv && x != lhs)
        break;
      std::optional<double> factor = scalarConstant(c);
      if (!factor || shapeOf(x) != shapeOf(value))
        continue;
      return {x, isDiv ? 1.0 / *factor : *factor};
    }
  }
  return {value, 1.0};
}

/// The key [B, H, Sk, D] whose transpose is `kt` [B, H, D, Sk]: a transpose
/// of `kt` folded into the one that made it, if any.
Value keyOf(OpBuilder &builder, Value kt) {
  ArrayRef<int64_t> shape = shapeOf(kt);
  SmallVector<int64_t> swapped{0, 1, 3, 2};
  Value source = kt;
  SmallVector<int64_t> perm = swapped;
  if (auto transpose = kt.getDefiningOp<TransposeOp>()) {
    ArrayRef<int64_t> p = transpose.getPerm();
    source = transpose.getInput();
    perm = {p[0], p[1], p[3], p[2]};
  }
  if (llvm::equal(perm, llvm::seq<int64_t>(0, 4)))
    return source;
  auto type = cast<RankedTensorType>(kt.getType());
  auto keyType =
      type.clone(SmallVector<int64_t>{shape[0], shape[1], shape[3], shape[2]});
  return TransposeOp::create(builder, kt.getLoc(), keyType, source, perm);
}

/// repeat_kv undone: for `x` [B, Hkv * n, S, D] that is a reshape of n
/// copies of r [B, Hkv, 1, S, D] concatenated on axis 2, the [B, Hkv, S, D]
/// tensor that r views and n; else `x` and 1. Head h of x is head h / n of
/// the result, the grouping tfuse.attention reads.
std::pair<Value, int64_t> unrepeat(OpBuilder &builder, Value x) {
  auto merge = x.getDefiningOp<ReshapeOp>();
  auto concat = merge ? merge.getInput().getDefiningOp<ConcatOp>() : ConcatOp();
  if (!concat || concat.getAxis() != 2 || concat.getInputs().size() < 2)
    return {x, 1};
  Value copy = concat.getInputs()[0];
  if (llvm::any_of(concat.getInputs(), [&](Value v) { return v != copy; }))
    return {x, 1};
  ArrayRef<int64_t> s = shapeOf(x), r = shapeOf(copy);
  auto n = static_cast<int64_t>(concat.getInputs().size());
  if (r.size() != 5 || r[0] != s[0] || r[1] * n != s[1] || r[2] != 1 ||
      r[3] != s[2] || r[4] != s[3])
    return {x, 1};
  SmallVector<int64_t> heads{r[0], r[1], r[3], r[4]};
  if (auto view = copy.getDefiningOp<ReshapeOp>();
      view && shapeOf(view.getInput()) == ArrayRef<int64_t>(heads))
    return {view.getInput(), n};
  auto type = cast<RankedTensorType>(x.getType()).clone(heads);
  return {ReshapeOp::create(builder, copy.getLoc(), type, copy), n};
}

enum class KnownMask { Other, Zero, Causal };

/// What the known mask `values` of `mask`'s type is over scores [.., Sq, Sk].
/// A masked-out entry is -inf or at most half the lowest finite value of the
/// element type (transformers writes torch.finfo(dtype).min): added to a
/// score it leaves probability exactly 0, as the causal mask's -inf does.
/// Smaller fills (GPT-2's -1e4, -1e9) leave the mask a mask.
KnownMask classifyMask(Value mask, int64_t sq, int64_t sk,
                       const std::vector<double> &values) {
  auto type = dyn_cast<RankedTensorType>(mask.getType());
  auto element = type ? dyn_cast<FloatType>(type.getElementType()) : nullptr;
  if (!element || !type.hasStaticShape() ||
      static_cast<int64_t>(values.size()) != type.getNumElements())
    return KnownMask::Other;
  ArrayRef<int64_t> shape = type.getShape();
  double maskedOut =
      llvm::APFloat::getLargest(element.getFloatSemantics(), /*Negative=*/true)
          .convertToDouble() /
      2;
  if (llvm::all_of(values, [](double v) { return v == 0.0; }))
    return KnownMask::Zero;
  if (shape.size() < 2 || shape[shape.size() - 2] != sq || shape.back() != sk)
    return KnownMask::Other;
  for (size_t index = 0; index < values.size(); ++index) {
    auto i = static_cast<int64_t>(index / sk) % sq;
    auto j = static_cast<int64_t>(index % sk);
    double v = values[index];
    if (j <= i ? v != 0.0 : !(v <= maskedOut))
      return KnownMask::Other;
  }
  return KnownMask::Causal;
}

/// Whether `mask` broadcasts to exactly `scores`.
bool broadcastsTo(ArrayRef<int64_t> mask, ArrayRef<int64_t> scores) {
  if (mask.size() > scores.size())
    return false;
  size_t lead = scores.size() - mask.size();
  for (size_t d = 0; d < mask.size(); ++d)
    if (mask[d] != 1 && mask[d] != scores[lead + d])
      return false;
  return true;
}

/// The attention whose product with the value is `pv`, or null.
AttentionOp matchOne(OpBuilder &builder, MatmulOp pv, KnownFloatsFn known,
                     AttentionMatchResult &result) {
  if (pv.getTransposeLhs() || pv.getTransposeRhs())
    return AttentionOp();
  auto softmax = pv.getLhs().getDefiningOp<SoftmaxOp>();
  Value v = pv.getRhs();
  if (!softmax || shapeOf(softmax).size() != 4 || softmax.getAxis() != 3 ||
      shapeOf(v).size() != 4)
    return AttentionOp();
  ArrayRef<int64_t> scores = shapeOf(softmax);

  // Scores, then an optional additive mask on them.
  Value logits = softmax.getInput(), mask;
  if (auto add = logits.getDefiningOp<AddOp>()) {
    for (auto [s, m] : {std::pair(add.getLhs(), add.getRhs()),
                        std::pair(add.getRhs(), add.getLhs())})
      if (shapeOf(s) == scores && broadcastsTo(shapeOf(m), scores) &&
          peelScale(s).first.getDefiningOp<MatmulOp>()) {
        logits = s;
        mask = m;
        break;
      }
    if (!mask)
      return AttentionOp();
  }
  auto [product, scale] = peelScale(logits);
  auto qk = product.getDefiningOp<MatmulOp>();
  if (!qk || qk.getTransposeLhs())
    return AttentionOp();
  auto [q, qScale] = peelScale(qk.getLhs());
  auto [kOperand, kScale] = peelScale(qk.getRhs());
  scale *= qScale * kScale;
  if (!(scale > 0.0) || !std::isfinite(scale))
    return AttentionOp();

  // Shapes: q [B, H, Sq, D], the key operand [B, H, D, Sk] (or [B, H, Sk, D]
  // with transpose_rhs), v [B, H, Sk, Dv]; no batch broadcasting.
  ArrayRef<int64_t> qs = shapeOf(q), ks = shapeOf(kOperand), vs = shapeOf(v);
  if (qs.size() != 4 || ks.size() != 4)
    return AttentionOp();
  int64_t sk = qk.getTransposeRhs() ? ks[2] : ks[3];
  int64_t kd = qk.getTransposeRhs() ? ks[3] : ks[2];
  if (qs[0] != ks[0] || qs[1] != ks[1] || kd != qs[3] || vs[0] != qs[0] ||
      vs[1] != qs[1] || vs[2] != sk ||
      scores != ArrayRef<int64_t>{qs[0], qs[1], qs[2], sk})
    return AttentionOp();

  builder.setInsertionPoint(pv);
  Value key = qk.getTransposeRhs() ? kOperand : keyOf(builder, kOperand);
  // Grouped-query attention: both repeated alike, or neither is unrepeated.
  auto [k0, kRepeat] = unrepeat(builder, key);
  auto [v0, vRepeat] = unrepeat(builder, v);
  if (kRepeat > 1 && kRepeat == vRepeat) {
    key = k0;
    v = v0;
  }

  bool causal = false;
  if (mask) {
    if (std::optional<std::vector<double>> values = known(mask)) {
      KnownMask kind = classifyMask(mask, qs[2], sk, *values);
      if (kind != KnownMask::Other) {
        result.droppedMasks.push_back(mask);
        causal = kind == KnownMask::Causal;
        mask = Value();
      }
    }
  }
  auto attention = AttentionOp::create(
      builder, pv.getLoc(), pv.getType(), q, key, v, mask,
      builder.getF64FloatAttr(scale),
      causal ? builder.getUnitAttr() : UnitAttr(), FloatAttr(), IntegerAttr());
  return attention;
}

} // namespace

AttentionMatchResult mlir::tfuse::matchAttention(Block &block,
                                                 KnownFloatsFn known) {
  AttentionMatchResult result;
  if (block.empty())
    return result;
  // The block need not be in an op yet (the ONNX front end's body is not).
  OpBuilder builder(block.front().getContext());
  SmallVector<MatmulOp> products;
  for (Operation &op : block)
    if (auto matmul = dyn_cast<MatmulOp>(op))
      products.push_back(matmul);
  for (MatmulOp pv : products) {
    AttentionOp attention = matchOne(builder, pv, known, result);
    if (!attention)
      continue;
    pv.getResult().replaceAllUsesWith(attention.getResult());
    ++result.matched;
  }
  return result;
}
