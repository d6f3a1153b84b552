//===- DecomposeAttention.cpp - tfuse.attention into its parts --*- C++ -*-===//
//
// Rewrites tfuse.attention into matmul / mul / add / causal_mask / softmax /
// dropout / matmul, each rounding to the element type: the lowering where
// the fused kernel does not apply (or is not asked for).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/KernelCost.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::tfuse {
#define GEN_PASS_DEF_TFUSEDECOMPOSEATTENTION
#include "tfuse/Transforms/Passes.h.inc"
} // namespace mlir::tfuse

using namespace mlir;
using namespace mlir::tfuse;

namespace {

/// Builds the ops of one attention over tensors of one element type.
class AttentionBuilder {
public:
  AttentionBuilder(PatternRewriter &rewriter, Location loc, Type element)
      : rewriter(rewriter), loc(loc), element(element) {}

  RankedTensorType type(ArrayRef<int64_t> shape) const {
    return RankedTensorType::get(shape, element);
  }

  Value reshape(Value value, ArrayRef<int64_t> shape) {
    if (cast<RankedTensorType>(value.getType()).getShape() == shape)
      return value;
    return ReshapeOp::create(rewriter, loc, type(shape), value);
  }

  template <typename BinaryOpTy> Value binary(Value lhs, Value rhs) {
    return BinaryOpTy::create(rewriter, loc, lhs.getType(), lhs, rhs);
  }

  Value scalar(double value) {
    RankedTensorType scalarType = type({});
    auto attr = DenseElementsAttr::get(
        scalarType, rewriter.getFloatAttr(element, value).getValue());
    return ConstantOp::create(rewriter, loc, attr);
  }

private:
  PatternRewriter &rewriter;
  Location loc;
  Type element;
};

/// The shape of a mask once the query heads are split into
/// [kv heads, group]: heads of size H become [Hkv, G], size 1 becomes [1, 1].
SmallVector<int64_t> groupedMaskShape(ArrayRef<int64_t> mask, int64_t kvHeads,
                                      int64_t group) {
  SmallVector<int64_t> padded(4 - mask.size(), 1);
  llvm::append_range(padded, mask);
  SmallVector<int64_t> shape{padded[0]};
  if (padded[1] == 1)
    shape.append({1, 1});
  else
    shape.append({kvHeads, group});
  shape.append({padded[2], padded[3]});
  return shape;
}

struct DecomposeAttentionPattern : OpRewritePattern<AttentionOp> {
  DecomposeAttentionPattern(MLIRContext *context, bool keepFused)
      : OpRewritePattern(context), keepFused(keepFused) {}

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (keepFused && checkAttentionKernel(op).empty())
      return rewriter.notifyMatchFailure(op, "the fused kernel computes it");
    // Its log-sum-exp feeds a fused backward (tfuse.attention_grad), which
    // needs the fused forward's statistics.
    if (op.getLse())
      return rewriter.notifyMatchFailure(op, "the forward of a fused backward");
    ArrayRef<int64_t> q = op.getQuery().getType().getShape();
    ArrayRef<int64_t> k = op.getKey().getType().getShape();
    ArrayRef<int64_t> v = op.getValue().getType().getShape();
    int64_t batch = q[0], heads = q[1], kvHeads = k[1], group = heads / kvHeads;
    int64_t querySeq = q[2], keySeq = k[2];
    AttentionBuilder b(rewriter, op.getLoc(),
                       op.getQuery().getType().getElementType());

    // Grouped-query attention: broadcast each key/value head over its group
    // through the matmul's batch dimensions instead of copying it.
    bool grouped = group > 1;
    Value query = op.getQuery(), key = op.getKey(), value = op.getValue();
    SmallVector<int64_t> scoreShape{batch, heads, querySeq, keySeq};
    SmallVector<int64_t> outShape{batch, heads, querySeq, v[3]};
    if (grouped) {
      query = b.reshape(query, {batch, kvHeads, group, querySeq, q[3]});
      key = b.reshape(key, {batch, kvHeads, 1, keySeq, k[3]});
      value = b.reshape(value, {batch, kvHeads, 1, keySeq, v[3]});
      scoreShape = {batch, kvHeads, group, querySeq, keySeq};
      outShape = {batch, kvHeads, group, querySeq, v[3]};
    }

    Value scores = MatmulOp::create(rewriter, op.getLoc(), b.type(scoreShape),
                                    query, key, /*transpose_lhs=*/false,
                                    /*transpose_rhs=*/true);
    scores = b.binary<MulOp>(scores, b.scalar(op.getScale().convertToDouble()));
    if (Value mask = op.getMask()) {
      if (grouped)
        mask = b.reshape(
            mask,
            groupedMaskShape(cast<RankedTensorType>(mask.getType()).getShape(),
                             kvHeads, group));
      scores = b.binary<AddOp>(scores, mask);
    }
    if (op.getCausal()) {
      Value causal = CausalMaskOp::create(rewriter, op.getLoc(),
                                          b.type({querySeq, keySeq}));
      scores = b.binary<AddOp>(scores, causal);
    }
    Value probs =
        SoftmaxOp::create(rewriter, op.getLoc(), scores, scoreShape.size() - 1);
    std::optional<APFloat> p = op.getDropoutP();
    if (p && !p->isZero())
      probs = DropoutOp::create(rewriter, op.getLoc(), probs,
                                rewriter.getF64FloatAttr(p->convertToDouble()),
                                rewriter.getI64IntegerAttr(*op.getSeed()));
    Value out = MatmulOp::create(rewriter, op.getLoc(), b.type(outShape), probs,
                                 value, false, false);
    rewriter.replaceOp(op, b.reshape(out, op.getResult().getType().getShape()));
    return success();
  }

  bool keepFused;
};

struct TFuseDecomposeAttentionPass
    : mlir::tfuse::impl::TFuseDecomposeAttentionBase<
          TFuseDecomposeAttentionPass> {
  using TFuseDecomposeAttentionBase::TFuseDecomposeAttentionBase;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateDecomposeAttentionPatterns(patterns, keepFused);
    // A plain walk: no folding, no dead-code removal, no constant hoisting,
    // so the pass changes nothing but the attention ops.
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace

void mlir::tfuse::populateDecomposeAttentionPatterns(
    RewritePatternSet &patterns, bool keepFused) {
  patterns.add<DecomposeAttentionPattern>(patterns.getContext(), keepFused);
}
