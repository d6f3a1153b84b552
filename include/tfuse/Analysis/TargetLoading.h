//===- TargetLoading.h - GPU targets with MLIR diagnostics ------*- C++ -*-===//
//
// Resolves target names or paths for passes and tools, reporting problems in
// a target file as MLIR diagnostics located in that file.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_ANALYSIS_TARGETLOADING_H
#define TFUSE_ANALYSIS_TARGETLOADING_H

#include "tfuse/Target/GpuTarget.h"

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

namespace mlir::tfuse {

/// "" when the NVPTX backend linked into this tool knows `smArch`; else an
/// error that names the range it supports.
std::string checkNvptxSmArch(const std::string &smArch);

/// Loads each of `namesOrPaths` (see resolveGpuTarget) from the default
/// search directories. Errors and warnings are emitted at their position in
/// the JSON file (`a40.json:3:5: error: $.memory.bandwidth_gbps: ...`), or at
/// `loc` when there is no file; fails if any target has errors. Each
/// "sm_arch" must pass checkNvptxSmArch and then `checkSmArch`, if given.
FailureOr<std::vector<GpuTarget>>
resolveTargets(Location loc, ArrayRef<std::string> namesOrPaths,
               const SmArchCheck &checkSmArch = {});

} // namespace mlir::tfuse

#endif // TFUSE_ANALYSIS_TARGETLOADING_H
