//===- Passes.h - tfuse transformation passes -------------------*- C++ -*-===//
//
// Declarations and registration of the graph rewrites.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_TRANSFORMS_PASSES_H
#define TFUSE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Target/GpuTarget.h"

namespace mlir::tfuse {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "tfuse/Transforms/Passes.h.inc"

/// Adds the pattern that rewrites tfuse.attention into matmul, softmax and
/// matmul; with `keepFused`, attention the fused kernel computes is left.
void populateDecomposeAttentionPatterns(RewritePatternSet &patterns,
                                        bool keepFused = false);

} // namespace mlir::tfuse

#endif // TFUSE_TRANSFORMS_PASSES_H
