//===- TrafficReportJson.cpp - the traffic report for tools -----*- C++ -*-===//
//
// The JSON form of the traffic report; its keys are documented in
// docs/report-schema.md and are stable within a schema version.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/TrafficAnalysis.h"

#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::tfuse;

namespace {

constexpr int kReportSchemaVersion = 1;

void writeTensors(llvm::json::OStream &json, llvm::StringRef key,
                  const std::vector<TensorDesc> &tensors) {
  json.attributeArray(key, [&] {
    for (const TensorDesc &tensor : tensors)
      json.object([&] {
        json.attributeArray("shape", [&] {
          for (int64_t dim : tensor.shape)
            json.value(dim);
        });
        json.attribute("dtype", tensor.dtype);
        if (!tensor.name.empty())
          json.attribute("name", tensor.name);
      });
  });
}

void writeTarget(llvm::json::OStream &json, const GpuTarget &target) {
  json.object([&] {
    json.attribute("name", target.name);
    json.attribute("display_name", target.displayName);
    json.attribute("sm_arch", target.smArch);
    json.attribute("bandwidth_gbps", target.memoryBandwidthGBps);
    json.attribute("achievable_bandwidth_gbps",
                   target.achievableBandwidthGBps());
    json.attribute("l2_cache_mb", target.l2CacheMB);
    json.attribute("fp32_tflops", target.fp32Tflops);
    json.attribute("fp16_tensor_tflops", target.fp16TensorTflops);
    json.attribute("bf16_tensor_tflops", target.bf16TensorTflops);
    // Integer ops a microsecond (dropout's Philox work, integer_ops).
    json.attribute("integer_ops_per_us", getIntegerOpsPerUs(target));
    json.attribute("kernel_launch_overhead_us", target.kernelLaunchOverheadUs);
    json.attribute("gemm_efficiency", target.gemmEfficiency);
    json.attribute("gemm_unaligned_factor", target.gemmUnalignedFactor);
    // What the flash-attention kernels are priced at (the GEMM efficiency
    // where the target has no figure of its own).
    json.attribute("attention_efficiency",
                   target.attentionEfficiency.value_or(target.gemmEfficiency));
  });
}

void writeSums(llvm::json::OStream &json, const TrafficReport &report,
               llvm::StringRef key, const KernelSums &sums) {
  json.attributeObject(key, [&] {
    json.attribute("kernels", sums.kernels);
    json.attribute("bytes", sums.bytes);
    json.attributeObject("time_us", [&] {
      for (auto [target, time] : llvm::zip(report.targets, sums.timeUs))
        json.attribute(target.name, time);
    });
  });
}

/// Predicted and measured time of every measured kernel, per results file.
void writeMeasured(llvm::json::OStream &json, const TrafficReport &report) {
  if (report.measured.empty())
    return;
  json.attributeArray("measured", [&] {
    for (const MeasuredRun &run : report.measured)
      json.object([&] {
        const GpuTarget &target = report.targets[run.target];
        json.attribute("file", run.file);
        json.attribute("device", run.device);
        json.attribute("function", run.function);
        json.attribute("target", target.name);
        json.attribute("plan_median_us", run.planMedianUs);
        json.attributeArray("kernels", [&] {
          for (const MeasuredKernel &entry : run.kernels)
            json.object([&] {
              const KernelCost &kernel = report.kernels[entry.kernel];
              double predicted = kernel.timeOn(target).totalUs;
              json.attribute("id", kernel.id);
              json.attribute("predicted_us", predicted);
              json.attribute("plan_predicted_us", entry.planPredictedUs);
              json.attribute("measured_us", entry.measuredUs);
              json.attribute("measured_min_us", entry.measuredMinUs);
              json.attribute("achieved_gbps",
                             entry.measuredUs > 0
                                 ? kernel.bytes() / (entry.measuredUs * 1e3)
                                 : 0.0);
              json.attribute("measured_over_predicted",
                             predicted > 0 ? entry.measuredUs / predicted
                                           : 0.0);
            });
        });
      });
  });
}

/// A collective's communication: the buffer, the group and, per target,
/// the link and the ring's bus bytes and time (or why there is no price).
void writeComm(llvm::json::OStream &json, const TrafficReport &report,
               const CollectiveTraffic &comm) {
  json.attributeObject("communication", [&] {
    json.attribute("collective", stringifyCollective(comm.collective));
    json.attribute("group_size", comm.groupSize);
    json.attribute("buffer_bytes", comm.bufferBytes);
    json.attributeObject("targets", [&] {
      for (auto [target, price] : llvm::zip(report.targets, comm.targets))
        json.attributeObject(target.name, [&] {
          if (!price.unavailable.empty()) {
            json.attribute("unavailable", price.unavailable);
            return;
          }
          json.attribute("link", price.link);
          json.attribute("bus_bytes", price.time.busBytes);
          json.attribute("bandwidth_us", price.time.bandwidthUs);
          json.attribute("latency_us", price.time.latencyUs);
          json.attribute("time_us", price.time.totalUs);
        });
    });
  });
}

void writeOp(llvm::json::OStream &json, const TrafficReport &report,
             const OpTraffic &op) {
  json.object([&] {
    json.attribute("function", op.function);
    json.attribute("op", op.name);
    json.attribute("loc", op.location);
    json.attribute("class", stringifyOpClass(op.opClass));
    json.attribute("compute", stringifyComputeClass(op.computeClass));
    json.attribute("phase", stringifyStepPhase(op.phase));
    writeTensors(json, "operands", op.operands);
    writeTensors(json, "results", op.results);
    json.attribute("bytes_read", op.bytesRead);
    json.attribute("bytes_written", op.bytesWritten);
    json.attribute("flops", op.flops);
    json.attribute("intensity", op.intensity());
    json.attributeArray("kernels", [&] {
      for (const KernelCost &kernel : report.kernelsOf(op))
        json.value(kernel.id);
    });
    json.attributeObject("targets", [&] {
      for (const GpuTarget &target : report.targets) {
        OpTime sum = report.timeOf(op, target);
        json.attributeObject(target.name, [&] {
          json.attribute("time_us", sum.time.totalUs);
          json.attribute("bound", stringifyBound(sum.time.bound));
          json.attribute("memory_us", sum.time.memoryUs);
          json.attribute("compute_us", sum.time.computeUs);
          json.attribute("integer_us", sum.time.integerUs);
          json.attribute("launch_us", sum.time.launchUs);
          json.attribute("l2_bytes", sum.l2Bytes);
        });
      }
    });
    if (op.comm)
      writeComm(json, report, *op.comm);
  });
}

/// One kernel as the code generator builds it: the id plan.json and
/// tfuse-run's results name it by, and its price on every target.
void writeKernel(llvm::json::OStream &json, const TrafficReport &report,
                 const KernelCost &kernel, size_t opIndex) {
  json.object([&] {
    json.attribute("id", kernel.id);
    json.attribute("op_index", (int64_t)opIndex);
    json.attribute("template", kernel.templateName);
    json.attribute("emitted", kernel.emitted());
    if (!kernel.emitted())
      json.attribute("unsupported", kernel.unsupported);
    json.attribute("bytes_read", kernel.bytesRead);
    json.attribute("bytes_written", kernel.bytesWritten);
    json.attribute("flops", kernel.flops);
    json.attribute("integer_ops", kernel.integerOps);
    json.attribute("compute", stringifyComputeClass(kernel.computeClass));
    json.attribute("l2_candidate_bytes", kernel.l2CandidateBytes);
    json.attribute("producer_bytes_written", kernel.producerBytesWritten);
    json.attributeObject("targets", [&] {
      for (const GpuTarget &target : report.targets) {
        KernelWork work = kernel.workOn(target);
        KernelTime time = predictKernelTime(work, target);
        json.attributeObject(target.name, [&] {
          json.attribute("time_us", time.totalUs);
          json.attribute("bound", stringifyBound(time.bound));
          json.attribute("l2_bytes", work.l2Bytes);
        });
      }
    });
  });
}

void writeTotals(llvm::json::OStream &json, const TrafficReport &report,
                 const Totals &totals) {
  json.attribute("bytes", totals.bytesRead + totals.bytesWritten);
  json.attribute("bytes_read", totals.bytesRead);
  json.attribute("bytes_written", totals.bytesWritten);
  json.attribute("flops", totals.flops);
  if (totals.collectives)
    json.attribute("collectives", totals.collectives);
  json.attributeObject("targets", [&] {
    for (auto [target, sums] : llvm::zip(report.targets, totals.targets))
      json.attributeObject(target.name, [&] {
        json.attribute("time_us", sums.timeUs);
        json.attribute("bandwidth_bound_share", sums.bandwidthBoundShare());
        json.attribute("memory_bound_us", sums.memoryBoundUs);
        json.attribute("compute_bound_us", sums.computeBoundUs);
        json.attribute("launch_bound_us", sums.launchBoundUs);
        json.attribute("kernels", sums.kernels);
        json.attribute("l2_bytes", sums.l2Bytes);
        if (totals.collectives) {
          json.attribute("communication_us", sums.commUs);
          json.attribute("bus_bytes", sums.busBytes);
        }
      });
  });
}

void writeComparisons(llvm::json::OStream &json, const TrafficReport &report) {
  json.attributeArray("comparisons", [&] {
    for (const TargetComparison &comparison : report.comparisons)
      json.object([&] {
        json.attribute("baseline", report.targets[comparison.baseline].name);
        json.attribute("target", report.targets[comparison.other].name);
        json.attribute("speedup", comparison.speedup);
        json.attribute("memory_system_speedup", comparison.memorySystemSpeedup);
        json.attribute("compute_speedup", comparison.computeSpeedup);
      });
  });
}

void writeSweep(llvm::json::OStream &json, const TrafficReport &report) {
  if (report.sweep.bandwidthsGBps.empty())
    return;
  json.attributeObject("sweep", [&] {
    json.attributeArray("bandwidth_gbps", [&] {
      for (double bandwidth : report.sweep.bandwidthsGBps)
        json.value(bandwidth);
    });
    json.attributeObject("targets", [&] {
      for (auto [target, times] :
           llvm::zip(report.targets, report.sweep.timeUs))
        json.attributeObject(target.name, [&] {
          json.attributeArray("time_us", [&] {
            for (double time : times)
              json.value(time);
          });
        });
    });
  });
}

void writeFusions(llvm::json::OStream &json, const TrafficReport &report) {
  json.attributeArray("fusions", [&] {
    for (const FusionSummary &fusion : report.fusions)
      json.object([&] {
        json.attribute("function", fusion.function);
        json.attribute("op_index", (int64_t)fusion.op);
        json.attribute("kind", fusion.kind);
        json.attributeArray("members", [&] {
          for (const std::string &member : fusion.members)
            json.value(member);
        });
        json.attribute("bytes_before", fusion.bytesBefore);
        json.attribute("bytes_after", fusion.bytesAfter);
        json.attribute("predicted_unfused_us", fusion.predictedUnfusedUs);
        json.attribute("predicted_fused_us", fusion.predictedFusedUs);
        json.attribute("target", fusion.target);
      });
  });
  json.attributeArray("decisions", [&] {
    for (const DecisionSummary &decision : report.decisions)
      json.object([&] {
        json.attribute("function", decision.function);
        json.attribute("fused", decision.fused);
        json.attribute("kind", decision.kind);
        json.attribute("producer", decision.producer);
        json.attribute("consumer", decision.consumer);
        json.attribute("rule", decision.rule);
        json.attribute("reason", decision.reason);
      });
  });
}

void writeTraining(llvm::json::OStream &json, const TrafficReport &report,
                   const TrainingSummary &training) {
  json.attributeObject("training", [&] {
    json.attribute("forward", training.forward);
    json.attribute("loss", training.loss);
    json.attribute("recompute", training.recompute);
    json.attribute("parameter_bytes", training.parameterBytes);
    json.attribute("saved_bytes", training.savedBytes);
    json.attribute("recompute_flops", training.recomputeFlops);
    json.attributeObject("phases", [&] {
      for (auto [phase, totals] : llvm::enumerate(training.phases))
        json.attributeObject(
            stringifyStepPhase(static_cast<StepPhase>(phase)),
            [&, &totals = totals] { writeTotals(json, report, totals); });
    });
  });
}

} // namespace

llvm::Error mlir::tfuse::printJsonReport(const TrafficReport &report,
                                         llvm::raw_ostream &out) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.object([&] {
    json.attribute("schema_version", kReportSchemaVersion);
    json.attributeObject("model", [&] {
      json.attribute("l2_bandwidth_multiplier", kL2BandwidthMultiplier);
      json.attribute("l2_resident_fraction", kL2ResidentFraction);
    });
    json.attributeArray("targets", [&] {
      for (const GpuTarget &target : report.targets)
        writeTarget(json, target);
    });
    json.attributeArray("ops", [&] {
      for (const OpTraffic &op : report.ops)
        writeOp(json, report, op);
    });
    json.attributeArray("kernels", [&] {
      for (auto [index, op] : llvm::enumerate(report.ops))
        for (const KernelCost &kernel : report.kernelsOf(op))
          writeKernel(json, report, kernel, index);
    });
    json.attributeObject("totals",
                         [&] { writeTotals(json, report, report.totals); });
    writeComparisons(json, report);
    writeSweep(json, report);
    writeFusions(json, report);
    writeSums(json, report, "fused", report.fused);
    if (report.unfused)
      writeSums(json, report, "unfused", *report.unfused);
    writeMeasured(json, report);
    json.attributeArray("functions", [&] {
      for (const FunctionSummary &function : report.functions)
        json.object([&] {
          json.attribute("name", function.name);
          json.attribute("first_op", (int64_t)function.firstOp);
          json.attribute("num_ops", (int64_t)function.numOps);
          json.attribute("first_kernel", (int64_t)function.firstKernel);
          json.attribute("num_kernels", (int64_t)function.numKernels);
          writeSums(json, report, "fused", function.fused);
          if (function.unfused)
            writeSums(json, report, "unfused", *function.unfused);
          json.attributeObject(
              "totals", [&] { writeTotals(json, report, function.totals); });
          json.attribute("peak_bytes", function.peakBytes);
          if (function.training)
            writeTraining(json, report, *function.training);
        });
    });
  });
  os << "\n";
  // llvm::json spells an infinite or NaN double `inf` or `nan`, which is not
  // JSON: refuse such a report rather than write it.
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed)
    return llvm::createStringError(
        "refusing to write a JSON report holding a number JSON cannot spell "
        "(infinite or NaN): " +
        llvm::toString(parsed.takeError()));
  out << text;
  return llvm::Error::success();
}
