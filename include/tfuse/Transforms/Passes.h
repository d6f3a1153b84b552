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

/// Adds the pattern that rewrites tfuse.attention into its definition.
void populateDecomposeAttentionPatterns(RewritePatternSet &patterns);

} // namespace mlir::tfuse

#endif // TFUSE_TRANSFORMS_PASSES_H
