//===- TrafficReportText.cpp - the traffic report for terminals -*- C++ -*-===//
//
// Prints the per-op table, totals, target comparison and bandwidth sweep as
// aligned text. Bytes are exact so tests can check them against hand counts.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/TrafficAnalysis.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tfuse;

namespace {

std::string formatTensor(const TensorDesc &tensor) {
  std::string text;
  for (int64_t dim : tensor.shape)
    text += std::to_string(dim) + "x";
  return text + tensor.dtype;
}

std::string formatSignature(const OpTraffic &op) {
  auto join = [](const std::vector<TensorDesc> &tensors) {
    std::string text;
    for (const TensorDesc &tensor : tensors)
      text += (text.empty() ? "" : ", ") + formatTensor(tensor);
    return text;
  };
  return "(" + join(op.operands) + ") -> " + join(op.results);
}

void printTargets(const TrafficReport &report, llvm::raw_ostream &os) {
  os << "targets:\n";
  for (const GpuTarget &target : report.targets)
    os << llvm::format(
        "  %-14s %s, %s: %.0f GB/s x %.2f = %.0f GB/s "
        "achievable, L2 %.0f MB, fp32 %.1f / bf16 tensor %.1f "
        "TFLOP/s, launch %.1f us\n",
        target.name.c_str(), target.displayName.c_str(), target.smArch.c_str(),
        target.memoryBandwidthGBps, target.achievableBandwidthFraction,
        target.achievableBandwidthGBps(), target.l2CacheMB, target.fp32Tflops,
        target.bf16TensorTflops, target.kernelLaunchOverheadUs);
}

void printOps(const TrafficReport &report, const FunctionSummary &function,
              llvm::raw_ostream &os) {
  os << llvm::format("%4s  %-18s %-12s %14s %14s %16s %9s", "#", "op", "class",
                     "bytes read", "bytes written", "flops", "flop/B");
  for (const GpuTarget &target : report.targets)
    os << llvm::format(" | %10s %-7s", (target.name + " us").c_str(), "bound");
  os << "\n";
  for (size_t index = function.firstOp,
              end = function.firstOp + function.numOps;
       index < end; ++index) {
    const OpTraffic &op = report.ops[index];
    os << llvm::format("%4zu  %-18s %-12s %14lld %14lld %16lld %9.2f",
                       index + 1, op.name.c_str(),
                       stringifyOpClass(op.opClass).str().c_str(),
                       (long long)op.bytesRead, (long long)op.bytesWritten,
                       (long long)op.flops, op.intensity());
    for (const GpuTarget &target : report.targets) {
      KernelTime time = report.timeOf(op, target).time;
      os << llvm::format(" | %10.2f %-7s", time.totalUs,
                         stringifyBound(time.bound));
    }
    os << "\n      " << op.location << "  " << formatSignature(op) << "\n";
    for (const KernelCost &kernel : report.kernelsOf(op))
      if (!kernel.emitted()) {
        os << "      not compiled: " << kernel.unsupported << "\n";
        break;
      }
  }
}

void printTotals(const TrafficReport &report, const Totals &totals,
                 llvm::StringRef what, llvm::raw_ostream &os) {
  int64_t bytes = totals.bytesRead + totals.bytesWritten;
  os << what
     << llvm::format(": %lld bytes (%.3f MB: %lld read, %lld written), "
                     "%lld flops\n",
                     (long long)bytes, bytes / 1e6, (long long)totals.bytesRead,
                     (long long)totals.bytesWritten, (long long)totals.flops);
  for (auto [target, sums] : llvm::zip(report.targets, totals.targets))
    os << llvm::format(
        "  %-14s %12.2f us in %lld kernels; bandwidth-bound "
        "%5.1f%%, compute-bound %5.1f%%, launch-bound %5.1f%%; "
        "%lld bytes read from L2\n",
        target.name.c_str(), sums.timeUs, (long long)sums.kernels,
        100 * sums.bandwidthBoundShare(),
        sums.timeUs ? 100 * sums.computeBoundUs / sums.timeUs : 0.0,
        sums.timeUs ? 100 * sums.launchBoundUs / sums.timeUs : 0.0,
        (long long)sums.l2Bytes);
}

void printComparisons(const TrafficReport &report, llvm::raw_ostream &os) {
  if (report.comparisons.empty())
    return;
  const std::string &base = report.targets.front().name;
  os << "\ncomparison against " << base << " (speedup = " << base
     << " time / target time):\n";
  for (const TargetComparison &comparison : report.comparisons)
    os << llvm::format("  %-14s %.3fx; with only its memory system "
                       "(bandwidth, L2) %.3fx, with only its peak FLOP/s "
                       "%.3fx\n",
                       report.targets[comparison.other].name.c_str(),
                       comparison.speedup, comparison.memorySystemSpeedup,
                       comparison.computeSpeedup);
}

void printSweep(const TrafficReport &report, llvm::raw_ostream &os) {
  const BandwidthSweep &sweep = report.sweep;
  if (sweep.bandwidthsGBps.empty())
    return;
  os << "\nbandwidth sweep (datasheet GB/s; each target keeps its achievable "
        "fraction and everything else):\n";
  os << llvm::format("  %10s", "GB/s");
  for (const GpuTarget &target : report.targets)
    os << llvm::format(" %12s", (target.name + " us").c_str());
  os << "\n";
  for (auto [index, bandwidth] : llvm::enumerate(sweep.bandwidthsGBps)) {
    os << llvm::format("  %10.1f", bandwidth);
    for (const std::vector<double> &times : sweep.timeUs)
      os << llvm::format(" %12.2f", times[index]);
    os << "\n";
  }
}

void printFusions(const TrafficReport &report, llvm::raw_ostream &os) {
  if (report.fusions.empty())
    return;
  os << "\nfusions (bytes and times as tfuse-fuse predicted them on its "
        "target):\n";
  for (const FusionSummary &fusion : report.fusions) {
    os << llvm::format("  #%-4zu %-14s %12lld -> %12lld bytes, %9.2f -> "
                       "%9.2f us on %s: ",
                       fusion.op + 1, fusion.kind.c_str(),
                       (long long)fusion.bytesBefore,
                       (long long)fusion.bytesAfter, fusion.predictedUnfusedUs,
                       fusion.predictedFusedUs, fusion.target.c_str());
    os << llvm::join(fusion.members, " + ") << "\n";
  }
}

void printDecisions(const TrafficReport &report, llvm::raw_ostream &os) {
  if (report.decisions.empty())
    return;
  os << "\nfusion decisions:\n";
  for (const DecisionSummary &decision : report.decisions) {
    os << "  " << (decision.fused ? "fused    " : "not fused") << " "
       << decision.producer << " into the " << decision.kind << " kernel of "
       << decision.consumer << ": ";
    if (!decision.rule.empty())
      os << "[" << decision.rule << "] ";
    os << decision.reason << "\n";
  }
}

} // namespace

void mlir::tfuse::printTextReport(const TrafficReport &report,
                                  llvm::raw_ostream &os) {
  os << "tfuse traffic report\n";
  printTargets(report, os);
  for (const FunctionSummary &function : report.functions) {
    os << "\n@" << function.name << "\n";
    printOps(report, function, os);
    printTotals(report, function.totals, "function totals", os);
  }
  if (report.functions.size() != 1)
    printTotals(report, report.totals, "\nmodule totals", os);
  printFusions(report, os);
  printDecisions(report, os);
  printComparisons(report, os);
  printSweep(report, os);
}
