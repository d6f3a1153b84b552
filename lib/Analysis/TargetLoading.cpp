//===- TargetLoading.cpp - GPU targets with MLIR diagnostics ----*- C++ -*-===//
//
// Bridges the MLIR-free target loader to MLIR's diagnostic engine.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/TargetLoading.h"
#include "tfuse/Support/OutputFile.h"
#include "tfuse/Target/GpuTarget.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::tfuse;

static void emitTargetDiagnostic(Location fallback, StringRef path,
                                 const JsonDiagnostic &diagnostic) {
  Location loc = fallback;
  if (!path.empty())
    loc = FileLineColLoc::get(fallback.getContext(), path, diagnostic.line,
                              diagnostic.column);
  std::string message = diagnostic.jsonPath.empty()
                            ? diagnostic.message
                            : diagnostic.jsonPath + ": " + diagnostic.message;
  if (diagnostic.isError())
    emitError(loc) << message;
  else
    emitWarning(loc) << message;
}

FailureOr<std::vector<GpuTarget>>
mlir::tfuse::resolveTargets(Location loc, ArrayRef<std::string> namesOrPaths) {
  std::vector<GpuTarget> targets;
  bool ok = true;
  for (const std::string &name : namesOrPaths) {
    TargetLoadResult result =
        resolveGpuTarget(name, getDefaultTargetSearchDirs());
    // No output of this process may replace the file (even a bad one).
    recordInputFile(result.path);
    for (const JsonDiagnostic &diagnostic : result.diagnostics)
      emitTargetDiagnostic(loc, result.path, diagnostic);
    if (!result.target || result.hasErrors()) {
      ok = false;
      continue;
    }
    targets.push_back(*result.target);
  }
  if (!ok)
    return failure();
  return targets;
}
