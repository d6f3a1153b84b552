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

#include "llvm/Config/llvm-config.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>

// Defined by the NVPTX backend (libLLVM); no public header declares them.
extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTargetMC();

using namespace mlir;
using namespace mlir::tfuse;

/// The number of an "sm_XX[a|f]" name (0 when it has none).
static unsigned smNumber(StringRef arch) {
  unsigned number = 0;
  arch.drop_front(3)
      .take_while([](char c) { return c >= '0' && c <= '9'; })
      .getAsInteger(10, number);
  return number;
}

std::string mlir::tfuse::checkNvptxSmArch(const std::string &smArch) {
  // The subtarget of the NVPTX backend linked into this tool, made once.
  static const std::unique_ptr<llvm::MCSubtargetInfo> info = [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
    llvm::Triple triple("nvptx64-nvidia-cuda");
    std::string error;
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(triple, error);
    return std::unique_ptr<llvm::MCSubtargetInfo>(
        target ? target->createMCSubtargetInfo(triple, "", "") : nullptr);
  }();
  if (!info)
    return "the installed LLVM has no NVPTX backend to check it against";
  if (info->isCPUStringValid(smArch))
    return "";
  StringRef lowest, highest;
  for (const llvm::SubtargetSubTypeKV &cpu :
       info->getAllProcessorDescriptions()) {
    StringRef name = cpu.Key;
    if (!name.starts_with("sm_"))
      continue;
    if (lowest.empty() || smNumber(name) < smNumber(lowest) ||
        (smNumber(name) == smNumber(lowest) && name < lowest))
      lowest = name;
    if (highest.empty() || smNumber(name) > smNumber(highest) ||
        (smNumber(name) == smNumber(highest) && name > highest))
      highest = name;
  }
  return ("\"" + smArch +
          "\" is not an architecture the installed NVPTX backend (LLVM " +
          LLVM_VERSION_STRING + ") knows; it supports " + lowest + " to " +
          highest)
      .str();
}

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
mlir::tfuse::resolveTargets(Location loc, ArrayRef<std::string> namesOrPaths,
                            const SmArchCheck &checkSmArch) {
  SmArchCheck check = [&](const std::string &smArch) {
    std::string problem = checkNvptxSmArch(smArch);
    if (problem.empty() && checkSmArch)
      problem = checkSmArch(smArch);
    return problem;
  };
  std::vector<GpuTarget> targets;
  bool ok = true;
  for (const std::string &name : namesOrPaths) {
    TargetLoadResult result =
        resolveGpuTarget(name, getDefaultTargetSearchDirs(), check);
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
