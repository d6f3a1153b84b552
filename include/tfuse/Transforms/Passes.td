//===- Passes.td - tfuse transformation passes -------------*- tablegen -*-===//
//
// Graph-to-graph rewrites of the tfuse dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_TRANSFORMS_PASSES_TD
#define TFUSE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TFuseDecomposeAttention : Pass<"tfuse-decompose-attention"> {
  let summary = "Rewrite tfuse.attention into matmul, scale, mask, softmax, "
                "dropout and matmul";
  let description = [{
    Each `tfuse.attention` becomes the ops it is defined as:
    `s = matmul(q, k) transpose_rhs`, `s = mul(s, scale)`, `s = add(s, mask)`
    (when a mask is given), `s = add(s, causal_mask)` (when causal),
    `p = softmax(s)` along the last axis, `p = dropout(p)` (when dropout_p
    is non-zero) and `o = matmul(p, v)`; each op rounds to the element type,
    the scale too (it becomes a constant of that type). Grouped-query attention reshapes the query
    to [B, Hkv, H/Hkv, Sq, D] and the key and value to [B, Hkv, 1, Sk, D], so
    that the matmul's batch broadcasting shares each key/value head among its
    query heads without copying it. The result is bit-identical to the
    reference semantics of `tfuse.attention`. Nothing but the attention ops
    changes: no folding or dead-code removal.
  }];
  let dependentDialects = ["::mlir::tfuse::TFuseDialect"];
}

#endif // TFUSE_TRANSFORMS_PASSES_TD
