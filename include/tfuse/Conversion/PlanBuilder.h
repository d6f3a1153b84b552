//===- PlanBuilder.h - a function as a bundle plan + kernels ----*- C++ -*-===//
//
// Turns a decomposed (and usually fused) tfuse function into the steps of
// docs/bundle.md: cuBLASLt GEMMs, emitted kernels, buffer aliases and an
// arena of temporaries, and serialises plan.json.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_CONVERSION_PLANBUILDER_H
#define TFUSE_CONVERSION_PLANBUILDER_H

#include "tfuse/Target/GpuTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::tfuse {

/// Emits the kernels of `func` into `kernels` and writes its plan.json to
/// `plan`. `func` is rewritten in place (standalone ops are wrapped into
/// single-op fusions); `module` names the PTX/cubin files.
LogicalResult buildPlan(func::FuncOp func, const GpuTarget &target,
                        gpu::GPUModuleOp kernels, StringRef ptxFile,
                        StringRef cubinFile, llvm::raw_ostream &plan);

} // namespace mlir::tfuse

#endif // TFUSE_CONVERSION_PLANBUILDER_H
