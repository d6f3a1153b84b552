//===- CompileSummary.cpp - tfuse-compile's one-screen summary ------------===//
//
// Prices the compiled function with the traffic analysis (the same kernel
// schedule as report.json and plan.json) and prints a few lines.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Pipelines/CompileSummary.h"
#include "tfuse/Analysis/TargetLoading.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace mlir::tfuse;

std::vector<GpuTarget>
mlir::tfuse::loadSummaryTargets(MLIRContext *context,
                                const std::string &bundleTarget) {
  std::vector<GpuTarget> targets;
  ScopedDiagnosticHandler quiet(context,
                                [](Diagnostic &) { return success(); });
  for (const char *name : {"h200", "a40", "l40s"}) {
    if (bundleTarget == name)
      continue;
    FailureOr<std::vector<GpuTarget>> loaded =
        resolveTargets(UnknownLoc::get(context), {name});
    if (succeeded(loaded) && loaded->front().name != bundleTarget)
      targets.push_back(loaded->front());
  }
  return targets;
}

void mlir::tfuse::printCompileSummary(ModuleOp module, StringRef function,
                                      ArrayRef<GpuTarget> targets,
                                      StringRef bundleDir,
                                      ArrayRef<std::string> files,
                                      llvm::raw_ostream &os) {
  // The compile succeeded, so its sizes are known to be in range.
  FailureOr<TrafficReport> analysed = analyzeTraffic(module, targets, {});
  if (failed(analysed))
    return;
  const TrafficReport &report = *analysed;
  auto summary = llvm::find_if(report.functions, [&](const auto &f) {
    return function.empty() || f.name == function;
  });
  if (summary == report.functions.end())
    return;
  ArrayRef<KernelCost> kernels =
      ArrayRef(report.kernels).slice(summary->firstKernel, summary->numKernels);
  size_t gemms = llvm::count_if(
      kernels, [](const KernelCost &k) { return k.templateName == "gemm"; });
  const Totals &totals = summary->totals;
  const GpuTarget &target = targets.front();
  os << "tfuse-compile: wrote " << bundleDir << " (" << llvm::join(files, ", ")
     << ") for " << target.name << " (" << target.smArch << ")\n";
  os << llvm::format(
      "  @%s: %zu steps (%zu GEMMs, %zu kernels), %lld bytes "
      "moved, %.3g GFLOP\n",
      summary->name.c_str(), kernels.size(), gemms, kernels.size() - gemms,
      (long long)(totals.bytesRead + totals.bytesWritten), totals.flops / 1e9);
  os << "  predicted:";
  for (auto [index, other] : llvm::enumerate(targets))
    os << llvm::format("%s %s %.2f us", index ? " |" : "", other.name.c_str(),
                       summary->totals.targets[index].timeUs);
  os << llvm::format("  (%.0f%% bandwidth-bound on %s)\n",
                     100 * totals.targets.front().bandwidthBoundShare(),
                     target.name.c_str());
  if (const std::optional<TrainingSummary> &training = summary->training) {
    os << "  training step of @" << training->forward << " (loss "
       << training->loss << ", recompute " << training->recompute << ") on "
       << target.name << ":";
    const char *separator = " ";
    for (auto [phase, totals] : llvm::enumerate(training->phases)) {
      if (totals.targets.front().kernels == 0)
        continue;
      os << separator << stringifyStepPhase(static_cast<StepPhase>(phase))
         << llvm::format(" %.2f us", totals.targets.front().timeUs);
      separator = ", ";
    }
    os << llvm::format(
        "; arguments with gradients %.3f MB, saved activations %.3f MB\n",
        training->parameterBytes / 1e6, training->savedBytes / 1e6);
  }
  os << llvm::format(
      "  memory:    %.3f GB peak in program order (%s %.0f "
      "GB: %s)\n",
      summary->peakBytes / 1e9, target.name.c_str(), target.memoryCapacityGB,
      summary->peakBytes <= target.memoryCapacityGB * 1e9 ? "fits"
                                                          : "does not fit");
  os << "  run it:    tfuse-run " << bundleDir << " --check --bench\n";
}
