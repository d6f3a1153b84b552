//===- MeasuredResults.cpp - tfuse-run's measurements in the report -------===//
//
// Reads the results file of `tfuse-run --json --bench` and matches each step
// to the report's kernel of the same id (report.json, plan.json and the
// results share kernel ids: docs/bundle.md), within the function and on the
// target the results name.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/TrafficAnalysis.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::tfuse;

namespace {

/// A `"key": "string"` member of `object`, or "".
std::string stringAt(const llvm::json::Object *object, StringRef key) {
  if (!object)
    return "";
  std::optional<StringRef> value = object->getString(key);
  return value ? value->str() : "";
}

} // namespace

LogicalResult mlir::tfuse::addMeasuredResults(TrafficReport &report,
                                              StringRef path, Location loc) {
  auto fail = [&](const Twine &message) {
    return emitError(loc) << "measured results '" << path << "': " << message;
  };
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return fail("cannot read: " + buffer.getError().message());
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*buffer)->getBuffer());
  if (!parsed)
    return fail("not JSON: " + llvm::toString(parsed.takeError()));
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root || !root->get("steps") || !root->getArray("steps"))
    return fail("not a tfuse-run --json results file (no \"steps\" array)");

  MeasuredRun run;
  run.file = path.str();
  run.function = stringAt(root, "function");
  run.device = stringAt(root->getObject("device"), "name");
  std::string targetName = stringAt(root->getObject("target"), "name");
  auto target = llvm::find_if(
      report.targets, [&](const GpuTarget &t) { return t.name == targetName; });
  if (target == report.targets.end())
    return fail("the results are for target '" + targetName +
                "', which the report does not price: add it to targets=");
  run.target = target - report.targets.begin();
  auto function = llvm::find_if(
      report.functions, [&](const auto &f) { return f.name == run.function; });
  if (function == report.functions.end())
    return fail("the results are for function '" + run.function +
                "', which is not in the report's module");
  ArrayRef<KernelCost> kernels =
      ArrayRef(report.kernels)
          .slice(function->firstKernel, function->numKernels);

  for (const llvm::json::Value &value : *root->getArray("steps")) {
    const llvm::json::Object *step = value.getAsObject();
    std::string name = stringAt(step, "name");
    std::optional<double> measured =
        step ? step->getNumber("measured_us") : std::nullopt;
    if (!measured)
      return fail("step '" + name +
                  "' has no measured_us: run tfuse-run with --bench");
    auto kernel = llvm::find_if(
        kernels, [&](const KernelCost &k) { return k.id == name; });
    if (kernel == kernels.end())
      return fail("step '" + name + "' is not a kernel of @" + run.function +
                  " in this report (a bundle compiled from other IR, or "
                  "fused differently?)");
    MeasuredKernel entry;
    entry.kernel = function->firstKernel + (kernel - kernels.begin());
    entry.op =
        llvm::find_if(report.ops,
                      [&](const OpTraffic &op) {
                        return entry.kernel >= op.firstKernel &&
                               entry.kernel < op.firstKernel + op.numKernels;
                      }) -
        report.ops.begin();
    entry.measuredUs = *measured;
    entry.measuredMinUs = step->getNumber("measured_min_us").value_or(0);
    entry.planPredictedUs = step->getNumber("predicted_us").value_or(0);
    run.kernels.push_back(entry);
  }
  if (const llvm::json::Object *totals = root->getObject("totals"))
    run.planMedianUs = totals->getNumber("plan_median_us").value_or(0);
  report.measured.push_back(std::move(run));
  return success();
}
