//===- Passes.h - tfuse analysis passes -------------------------*- C++ -*-===//
//
// Declarations and registration of the analysis passes.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_ANALYSIS_PASSES_H
#define TFUSE_ANALYSIS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tfuse {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "tfuse/Analysis/Passes.h.inc"

} // namespace mlir::tfuse

#endif // TFUSE_ANALYSIS_PASSES_H
