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

#include <cmath>

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
  os << "targets (every time below follows from these figures; "
        "docs/cost-model.md):\n";
  for (const GpuTarget &target : report.targets)
    os << llvm::format(
        "  %-14s %s, %s: %.0f GB/s x %.2f = %.0f GB/s "
        "achievable, L2 %.0f MB, fp32 %.1f TFLOP/s, bf16 tensor %.1f "
        "TFLOP/s x gemm_efficiency %.2f = %.1f (rows off 16-byte alignment "
        "x %.2f more, flash attention x %.2f), launch %.1f us\n",
        target.name.c_str(), target.displayName.c_str(), target.smArch.c_str(),
        target.memoryBandwidthGBps, target.achievableBandwidthFraction,
        target.achievableBandwidthGBps(), target.l2CacheMB, target.fp32Tflops,
        target.bf16TensorTflops, target.gemmEfficiency,
        target.bf16TensorTflops * target.gemmEfficiency,
        target.gemmUnalignedFactor,
        target.attentionEfficiency.value_or(target.gemmEfficiency),
        target.kernelLaunchOverheadUs);
  os << llvm::format("  model: time = launch + max(DRAM bytes / achievable "
                     "bandwidth + L2 bytes / (%.1f x achievable), FLOPs / "
                     "peak); a kernel's input is read from L2 when its "
                     "producer wrote at most %.0f%% of L2\n",
                     kL2BandwidthMultiplier, 100 * kL2ResidentFraction);
}

/// A collective's communication, per target, apart from its kernel time.
void printComm(const TrafficReport &report, const CollectiveTraffic &comm,
               llvm::raw_ostream &os) {
  os << "      communication (not in the kernel times): "
     << stringifyCollective(comm.collective) << " of " << comm.bufferBytes
     << " bytes among " << comm.groupSize << " GPUs\n";
  for (auto [target, price] : llvm::zip(report.targets, comm.targets)) {
    os << llvm::format("        %-14s ", target.name.c_str());
    if (!price.unavailable.empty())
      os << "no price: " << price.unavailable << "\n";
    else
      os << llvm::format("%-6s %.0f bus bytes: %.2f us = %.2f bandwidth + "
                         "%.2f latency\n",
                         price.link.c_str(), price.time.busBytes,
                         price.time.totalUs, price.time.bandwidthUs,
                         price.time.latencyUs);
  }
}

void printOps(const TrafficReport &report, const FunctionSummary &function,
              llvm::raw_ostream &os) {
  // Ops are numbered as report.json's "ops" array (and "op_index").
  os << llvm::format("%4s  %-18s %-12s %14s %14s %16s %9s", "#", "op", "class",
                     "bytes read", "bytes written", "flops", "flop/B");
  for (const GpuTarget &target : report.targets)
    os << llvm::format(" | %10s %-7s", (target.name + " us").c_str(), "bound");
  os << "\n";
  for (size_t index = function.firstOp,
              end = function.firstOp + function.numOps;
       index < end; ++index) {
    const OpTraffic &op = report.ops[index];
    os << llvm::format(
        "%4zu  %-18s %-12s %14lld %14lld %16lld %9.2f", index, op.name.c_str(),
        stringifyOpClass(op.opClass).str().c_str(), (long long)op.bytesRead,
        (long long)op.bytesWritten, (long long)op.flops, op.intensity());
    for (const GpuTarget &target : report.targets) {
      KernelTime time = report.timeOf(op, target).time;
      os << llvm::format(" | %10.2f %-7s", time.totalUs,
                         stringifyBound(time.bound));
    }
    os << "\n      " << op.location << "  " << formatSignature(op) << "\n";
    std::string l2;
    for (const GpuTarget &target : report.targets)
      if (int64_t bytes = report.timeOf(op, target).l2Bytes)
        l2 += " " + target.name + " " + std::to_string(bytes);
    if (!l2.empty())
      os << "      bytes read from L2:" << l2 << "\n";
    for (const KernelCost &kernel : report.kernelsOf(op))
      if (!kernel.emitted()) {
        os << "      not compiled: " << kernel.unsupported << "\n";
        break;
      }
    if (op.comm)
      printComm(report, *op.comm, os);
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
  if (totals.collectives == 0)
    return;
  os << "  communication of " << totals.collectives
     << " collectives (not in the times above):";
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip(report.targets, totals.targets)))
    os << (index ? ";" : "")
       << llvm::format(" %s %.2f us, %.0f bus bytes",
                       std::get<0>(pair).name.c_str(), std::get<1>(pair).commUs,
                       std::get<1>(pair).busBytes);
  os << "\n";
}

void printMemory(const TrafficReport &report, const FunctionSummary &function,
                 llvm::raw_ostream &os) {
  os << llvm::format("  device memory (program order, peak of arguments, "
                     "constants and live values): %lld bytes (%.3f GB)",
                     (long long)function.peakBytes, function.peakBytes / 1e9);
  for (auto [index, target] : llvm::enumerate(report.targets))
    os << (index ? "; " : ": ") << target.name
       << (function.peakBytes <= target.memoryCapacityGB * 1e9
               ? " fits"
               : " does not fit")
       << llvm::format(" (%.0f GB)", target.memoryCapacityGB);
  os << "\n";
}

void printTraining(const TrafficReport &report, const TrainingSummary &training,
                   llvm::raw_ostream &os) {
  os << "  training step of @" << training.forward << " (loss " << training.loss
     << ", recompute " << training.recompute
     << llvm::format(
            "): arguments with gradients %lld bytes, saved activations %lld "
            "bytes, recomputed %lld flops\n",
            (long long)training.parameterBytes, (long long)training.savedBytes,
            (long long)training.recomputeFlops);
  for (auto [phase, totals] : llvm::enumerate(training.phases)) {
    if (totals.targets.empty() || totals.targets.front().kernels == 0)
      continue;
    os << llvm::format(
        "    %-9s %14lld bytes %16lld flops",
        stringifyStepPhase(static_cast<StepPhase>(phase)).str().c_str(),
        (long long)(totals.bytesRead + totals.bytesWritten),
        (long long)totals.flops);
    for (auto [target, sums] : llvm::zip(report.targets, totals.targets))
      os << llvm::format(" | %s %.2f us in %lld kernels", target.name.c_str(),
                         sums.timeUs, (long long)sums.kernels);
    os << "\n";
  }
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

/// Fused against the same IR with every fusion inlined, per target.
void printFusionSavings(const TrafficReport &report, llvm::raw_ostream &os) {
  if (!report.unfused)
    return;
  const KernelSums &before = *report.unfused, &after = report.fused;
  os << llvm::format("\nfusion: %lld kernels moving %lld bytes unfused, %lld "
                     "kernels moving %lld bytes fused (%.2fx less traffic)\n",
                     (long long)before.kernels, (long long)before.bytes,
                     (long long)after.kernels, (long long)after.bytes,
                     after.bytes ? double(before.bytes) / after.bytes : 0.0);
  for (auto [index, target] : llvm::enumerate(report.targets)) {
    double unfusedUs = before.timeUs[index], fusedUs = after.timeUs[index];
    os << llvm::format("  %-14s %12.2f us unfused -> %12.2f us fused: %.3fx\n",
                       target.name.c_str(), unfusedUs, fusedUs,
                       fusedUs > 0 ? unfusedUs / fusedUs : 0.0);
  }
}

void printFusions(const TrafficReport &report, llvm::raw_ostream &os) {
  if (report.fusions.empty())
    return;
  os << "\nfusions (bytes and times as tfuse-fuse predicted them on its "
        "target, each member alone):\n";
  for (const FusionSummary &fusion : report.fusions) {
    os << llvm::format("  #%-4zu %-14s %12lld -> %12lld bytes, %9.2f -> "
                       "%9.2f us on %s: ",
                       fusion.op, fusion.kind.c_str(),
                       (long long)fusion.bytesBefore,
                       (long long)fusion.bytesAfter, fusion.predictedUnfusedUs,
                       fusion.predictedFusedUs, fusion.target.c_str());
    os << llvm::join(fusion.members, " + ") << "\n";
  }
}

/// Kernels of ops outside any fusion that are not library GEMMs: what fusion
/// left on the table, with each one's share of the memory-bound time.
void printOwnKernels(const TrafficReport &report, llvm::raw_ostream &os) {
  if (!report.unfused)
    return;
  std::vector<size_t> left;
  for (auto [index, op] : llvm::enumerate(report.ops))
    if (!isa<FusionOp>(op.op) && op.numKernels &&
        report.kernels[op.firstKernel].templateName != "gemm")
      left.push_back(index);
  if (left.empty())
    return;
  os << "\nops that stay their own kernel (not fused, not a GEMM); share = "
        "of the memory-bound time:\n";
  for (size_t index : left) {
    const OpTraffic &op = report.ops[index];
    os << llvm::format("  #%-4zu %-18s", index, op.name.c_str());
    for (auto [target, totals] :
         llvm::zip(report.targets, report.totals.targets)) {
      double us = report.timeOf(op, target).time.totalUs;
      os << llvm::format(
          " | %s %9.2f us %5.1f%%", target.name.c_str(), us,
          totals.memoryBoundUs > 0 ? 100 * us / totals.memoryBoundUs : 0.0);
    }
    os << "  " << op.location << "\n";
  }
}

/// The decisions, grouped by outcome, rule and reason: one line per reason
/// and the producer -> consumer pairs it covers.
void printDecisions(const TrafficReport &report, llvm::raw_ostream &os) {
  if (report.decisions.empty())
    return;
  size_t fused = llvm::count_if(
      report.decisions, [](const DecisionSummary &d) { return d.fused; });
  os << "\nfusion decisions (" << report.decisions.size() << ": " << fused
     << " fused, " << report.decisions.size() - fused
     << " not), grouped by reason:\n";
  for (const auto &group : groupDecisions(report.decisions)) {
    const DecisionSummary &first = *group.front();
    os << "  " << (first.fused ? "fused    " : "not fused") << " "
       << group.size() << "x ";
    if (!first.rule.empty())
      os << "[" << first.rule << "] ";
    os << first.reason << "\n";
    for (const DecisionSummary *decision : group)
      os << "      " << decision->producer << " into the " << decision->kind
         << " kernel of " << decision->consumer << "\n";
  }
}

/// Measured kernels next to their predictions, per results file.
void printMeasured(const TrafficReport &report, llvm::raw_ostream &os) {
  for (const MeasuredRun &run : report.measured) {
    const GpuTarget &target = report.targets[run.target];
    os << "\nmeasured on " << run.device << " (" << run.file << "), @"
       << run.function << " against " << target.name << ":\n";
    os << llvm::format("  %-18s %5s %12s %12s %10s %12s %10s\n", "kernel", "op",
                       "predicted us", "measured us", "GB/s", "% achievable",
                       "meas/pred");
    double predictedSum = 0, measuredSum = 0;
    for (const MeasuredKernel &entry : run.kernels) {
      const KernelCost &kernel = report.kernels[entry.kernel];
      double predicted = kernel.timeOn(target).totalUs;
      double gbps = entry.measuredUs > 0
                        ? kernel.bytes() / (entry.measuredUs * 1e3)
                        : 0.0;
      os << llvm::format("  %-18s %5zu %12.2f %12.2f %10.1f %11.1f%% %9.2fx",
                         kernel.id.c_str(), entry.op, predicted,
                         entry.measuredUs, gbps,
                         100 * gbps / target.achievableBandwidthGBps(),
                         predicted > 0 ? entry.measuredUs / predicted : 0.0);
      // The plan's prediction differs only when the bundle was compiled from
      // other IR or another target file.
      if (std::abs(entry.planPredictedUs - predicted) > 1e-6 * predicted + 1e-9)
        os << llvm::format("  (plan.json predicted %.2f)",
                           entry.planPredictedUs);
      os << "\n";
      predictedSum += predicted;
      measuredSum += entry.measuredUs;
    }
    os << llvm::format("  %-18s %5s %12.2f %12.2f %10s %12s %9.2fx\n",
                       "sum of kernels", "", predictedSum, measuredSum, "", "",
                       predictedSum > 0 ? measuredSum / predictedSum : 0.0);
    if (run.planMedianUs > 0)
      os << llvm::format(
          "  whole plan replayed (CUDA graph, median): %.2f us\n",
          run.planMedianUs);
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
    printMemory(report, function, os);
    if (function.training)
      printTraining(report, *function.training, os);
  }
  if (report.functions.size() != 1)
    printTotals(report, report.totals, "\nmodule totals", os);
  printFusionSavings(report, os);
  printFusions(report, os);
  printOwnKernels(report, os);
  printDecisions(report, os);
  printMeasured(report, os);
  printComparisons(report, os);
  printSweep(report, os);
}
