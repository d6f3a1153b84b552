//===- TrafficReport.cpp - the tfuse-traffic-report pass --------*- C++ -*-===//
//
// Wiring only: resolve the targets, run the traffic analysis, write the report
// in the requested format through an atomic output file.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/Passes.h"
#include "tfuse/Analysis/TargetLoading.h"
#include "tfuse/Analysis/TrafficAnalysis.h"
#include "tfuse/Support/OutputFile.h"

#include "llvm/ADT/StringExtras.h"

namespace mlir::tfuse {
#define GEN_PASS_DEF_TFUSETRAFFICREPORT
#include "tfuse/Analysis/Passes.h.inc"
} // namespace mlir::tfuse

using namespace mlir;
using namespace mlir::tfuse;

namespace {

/// Parses START:STOP:STEP (GB/s) into the list of bandwidths, inclusive.
FailureOr<std::vector<double>> parseSweep(Location loc, StringRef text) {
  std::vector<double> bandwidths;
  if (text.empty())
    return bandwidths;
  SmallVector<StringRef> parts;
  text.split(parts, ':');
  double start = 0, stop = 0, step = 0;
  if (parts.size() != 3 || !llvm::to_float(parts[0], start) ||
      !llvm::to_float(parts[1], stop) || !llvm::to_float(parts[2], step) ||
      !(start >= kMinBandwidthGBps) || !(stop >= start) ||
      !(stop <= kMaxBandwidthGBps) || !(step > 0) ||
      (stop - start) / step > 1000)
    return emitError(loc) << "sweep-bandwidth must be START:STOP:STEP in GB/s "
                             "with "
                          << static_cast<int64_t>(kMinBandwidthGBps)
                          << " <= START <= STOP <= "
                          << static_cast<int64_t>(kMaxBandwidthGBps)
                          << ", STEP > 0 and at most 1000 steps, got '" << text
                          << "'";
  for (double bandwidth = start; bandwidth <= stop + 1e-9 * stop;
       bandwidth += step)
    bandwidths.push_back(bandwidth);
  return bandwidths;
}

/// The input file of `module`, from its location, if any.
std::string inputFileOf(ModuleOp module) {
  std::string file;
  module->walk([&](Operation *op) {
    if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc())) {
      file = loc.getFilename().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return file;
}

struct TFuseTrafficReportPass
    : mlir::tfuse::impl::TFuseTrafficReportBase<TFuseTrafficReportPass> {
  using TFuseTrafficReportBase::TFuseTrafficReportBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Location loc = module.getLoc();
    if (format != "text" && format != "json" && format != "html") {
      emitError(loc) << "format must be text, json or html, got '" << format
                     << "'";
      return signalPassFailure();
    }
    FailureOr<std::vector<double>> sweep = parseSweep(loc, sweepBandwidth);
    if (failed(sweep))
      return signalPassFailure();
    std::vector<std::string> names(targets.begin(), targets.end());
    if (names.empty())
      names = {"a40", "l40s", "h200"};
    FailureOr<std::vector<GpuTarget>> resolved = resolveTargets(loc, names);
    if (failed(resolved))
      return signalPassFailure();

    std::vector<std::string> inputs(measured.begin(), measured.end());
    if (std::string input = inputFileOf(module); !input.empty())
      inputs.push_back(input);
    if (llvm::Error error = checkOutputIsNotAnInput(output, inputs)) {
      emitError(loc) << llvm::toString(std::move(error));
      return signalPassFailure();
    }
    auto file = AtomicOutputFile::create(output);
    if (!file) {
      emitError(loc) << llvm::toString(file.takeError());
      return signalPassFailure();
    }

    FailureOr<TrafficReport> report = analyzeTraffic(module, *resolved, *sweep);
    if (failed(report))
      return signalPassFailure();
    for (const std::string &results : measured)
      if (failed(addMeasuredResults(*report, results, loc)))
        return signalPassFailure();
    if (format == "json") {
      if (llvm::Error error = printJsonReport(*report, (*file)->os())) {
        emitError(loc) << llvm::toString(std::move(error));
        return signalPassFailure();
      }
    } else if (format == "html") {
      printHtmlReport(*report, (*file)->os());
    } else {
      printTextReport(*report, (*file)->os());
    }
    if (llvm::Error error = (*file)->commit()) {
      emitError(loc) << llvm::toString(std::move(error));
      return signalPassFailure();
    }
    markAllAnalysesPreserved();
  }
};

} // namespace
