//===- PlanBuilder.h - a function as a bundle plan + kernels ----*- C++ -*-===//
//
// Turns a decomposed (and usually fused) tfuse function into the steps of
// docs/bundle.md: cuBLASLt GEMMs, emitted kernels, buffer aliases and an
// arena of temporaries, and serialises plan.json.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_CONVERSION_PLANBUILDER_H
#define TFUSE_CONVERSION_PLANBUILDER_H

#include "tfuse/Bundle/Plan.h"
#include "tfuse/Target/GpuTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::tfuse {

/// Emits the kernels of `func` into `kernels` and returns its plan (each
/// kernel's parameters read from its gpu.func). `func` is rewritten in place
/// (standalone ops are wrapped into single-op fusions); `ptxFile` and
/// `cubinFile` name the module files, whose hashes the caller fills in once
/// it has them.
FailureOr<bundle::Plan> buildPlan(func::FuncOp func, const GpuTarget &target,
                                  gpu::GPUModuleOp kernels, StringRef ptxFile,
                                  StringRef cubinFile);

} // namespace mlir::tfuse

#endif // TFUSE_CONVERSION_PLANBUILDER_H
