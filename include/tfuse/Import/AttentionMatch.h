//===- AttentionMatch.h - decomposed attention matcher ----------*- C++ -*-===//
//-*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Finds scaled dot-product attention spelt out op by op, as the ONNX front
// end imports PyTorch's exports of eager attention, and replaces each with
// one tfuse.attention:
//
//   p = softmax(matmul(q, kt) * c + mask) along the last axis
//   o = matmul(p, v)
//
// with kt the key transposed (a transpose of [B, Hkv, Sk, D], or a matmul
// with transpose_rhs), the scale a scalar constant multiplied (or divided)
// into the scores, or into q and kt before the product, and the additive
// mask optional. Key and value repeated for grouped-query attention
// (repeat_kv: a reshape to [B, Hkv, 1, S, D], n copies concatenated on axis
// 2 and a reshape to [B, Hkv * n, S, D]) are read unrepeated. A mask whose
// contents are known and exactly causal (0 where key j <= query i, -inf or
// at most half the element type's lowest value elsewhere, as
// torch.finfo(dtype).min, for every batch and head) becomes the `causal`
// attribute, an all-zero one is dropped, any other mask that
// broadcasts to the scores stays the op's additive mask. Anything else
// (another softmax axis, a scale that is not a positive finite scalar, the
// scale applied after the mask, heads repeated in another order, batch
// broadcasting in a product) is left as it is.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_IMPORT_ATTENTIONMATCH_H
#define TFUSE_IMPORT_ATTENTIONMATCH_H

#include "mlir/IR/Block.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <vector>

namespace mlir::tfuse {

/// The elements of a float tensor value in row-major order when the front
/// end knows them (a constant, or a weight it has read), else nullopt.
using KnownFloatsFn =
    llvm::function_ref<std::optional<std::vector<double>>(Value)>;

/// What matchAttention did.
struct AttentionMatchResult {
  /// tfuse.attention ops created.
  int64_t matched = 0;
  /// The mask values that became `causal` or were dropped (all zero): a
  /// front end may drop the weight arguments among them nothing reads.
  llvm::SmallVector<Value> droppedMasks;
};

/// Replaces each decomposed attention in `block` (see the file comment) by a
/// tfuse.attention before the product with the value, which takes that
/// product's uses. The decomposed ops stay for the caller to erase once
/// unused.
AttentionMatchResult matchAttention(Block &block, KnownFloatsFn known);

} // namespace mlir::tfuse

#endif // TFUSE_IMPORT_ATTENTIONMATCH_H
