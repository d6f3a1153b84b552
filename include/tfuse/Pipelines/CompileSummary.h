//===- CompileSummary.h - tfuse-compile's one-screen summary ----*- C++ -*-===//
//
// What a compile produced, in a few lines: the kernels and GEMMs of the
// compiled function, the bytes they move, the predicted time on the bundle's
// target and on the reference GPUs, and where the bundle is.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_PIPELINES_COMPILESUMMARY_H
#define TFUSE_PIPELINES_COMPILESUMMARY_H

#include "tfuse/Analysis/TrafficAnalysis.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir::tfuse {

/// Prints the summary of `function` (empty: the first with a body) of a
/// compiled `module`. `targets` lists the bundle's target first; the times
/// of every target are priced by the one kernel schedule (KernelCost.h).
/// `files` are the bundle's file names, in `bundleDir`.
void printCompileSummary(ModuleOp module, StringRef function,
                         ArrayRef<GpuTarget> targets, StringRef bundleDir,
                         ArrayRef<std::string> files, llvm::raw_ostream &os);

/// The targets a summary compares the bundle's target with: the shipped
/// A40, L40S and H200, without the one already named `bundleTarget`;
/// diagnostics are dropped (they were printed when the bundle was compiled).
std::vector<GpuTarget> loadSummaryTargets(MLIRContext *context,
                                          const std::string &bundleTarget);

} // namespace mlir::tfuse

#endif // TFUSE_PIPELINES_COMPILESUMMARY_H
