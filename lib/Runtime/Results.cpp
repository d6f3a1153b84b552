//===- Results.cpp - tfuse-run's results: table and JSON --------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the human table and the JSON document of a run
// (written with nlohmann::ordered_json, so keys keep the schema's order), and
// the safe, atomic file output.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/Results.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir::tfuse;
using namespace mlir::tfuse::rt;

namespace {

using ordered_json = nlohmann::ordered_json;

/// A number for the results JSON: integral values as integers (so "50", not
/// "50.0"), NaN and infinities, which JSON lacks, as null.
ordered_json number(double value) {
  if (!std::isfinite(value))
    return nullptr;
  if (std::nearbyint(value) == value && std::fabs(value) < 1e16)
    return static_cast<int64_t>(value);
  return value;
}

std::string format(const char *fmt, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), fmt, value);
  return buffer;
}

std::string pad(std::string s, size_t width, bool right = false) {
  if (s.size() >= width)
    return s;
  return right ? std::string(width - s.size(), ' ') + s
               : s + std::string(width - s.size(), ' ');
}

const char *stepKindName(StepKind kind) {
  return kind == StepKind::Kernel ? "kernel" : "gemm";
}

/// The check column: "ok 3.1e-03" / "FAIL 4.2e-01" / "error".
std::string checkCell(const StepCheck &c) {
  if (!c.error.empty())
    return "ERROR";
  return std::string(c.passed ? "ok " : "FAIL ") +
         format("%.1e", c.maxAbsError) + (c.sampled ? " (s)" : "");
}

} // namespace

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

const StepCheck *RunResults::firstFailure() const {
  for (const StepCheck &c : checks)
    if (!c.passed)
      return &c;
  return nullptr;
}

std::string mlir::tfuse::rt::describeCheckFailure(const Plan &plan,
                                                  const StepCheck &check) {
  std::string out = "check failed at " + plan.describeStep(check.step);
  if (!check.error.empty())
    return out + ": the reference could not be computed: " + check.error;
  for (const OutputCheck &o : check.outputs) {
    const TensorComparison &c = o.comparison;
    if (c.passed())
      continue;
    const PlanBuffer &b = plan.buffers[o.buffer];
    out +=
        ": output " + plan.describeBuffer(o.buffer) + " " +
        ref::formatTensorType(b.type()) + ": " + std::to_string(c.failures) +
        " of " + std::to_string(c.compared) +
        (check.sampled ? " sampled" : "") +
        " elements out of tolerance (rtol " + format("%g", c.tolerance.rtol) +
        ", atol " + format("%g", c.tolerance.atol) + "); worst at " +
        formatElementIndex(b.shape, c.worstIndex) + " (flat " +
        std::to_string(c.worstIndex) + "): gpu " + format("%.8g", c.worstGpu) +
        ", reference " + format("%.8g", c.worstRef) + ", |diff| " +
        format("%.3g", std::fabs(c.worstGpu - c.worstRef));
    break;
  }
  return out;
}

/// "gemm algorithms: 18 GEMMs tuned over 8 candidates each, 5 kept one other
/// than the heuristic's first: 1234.50 -> 1100.20 us in the trials"; empty
/// when no GEMM was tuned.
static std::string
formatGemmChoices(const std::vector<std::optional<GemmChoice>> &all) {
  int tuned = 0, changed = 0, most = 0;
  double heuristic = 0, chosen = 0;
  for (const std::optional<GemmChoice> &g : all) {
    if (!g || !g->tuned)
      continue;
    ++tuned;
    changed += g->chosen != 0;
    most = std::max(most, g->candidates);
    heuristic += g->heuristicUs;
    chosen += g->chosenUs;
  }
  if (tuned == 0)
    return "";
  return "gemm algorithms: " + std::to_string(tuned) +
         " GEMMs tuned over up to " + std::to_string(most) + " candidates, " +
         std::to_string(changed) +
         " kept one other than the heuristic's first: " +
         format("%.2f", heuristic) + " -> " + format("%.2f", chosen) +
         " us in the trials\n";
}

std::string mlir::tfuse::rt::formatResultsTable(const RunResults &r) {
  const Plan &plan = *r.plan;
  const BenchResult *bench = r.bench ? &*r.bench : nullptr;
  double peak = plan.target.bandwidthGBps;
  std::string out;
  out += pad("step", 5) + pad("name", 22) + pad("kind", 7) +
         pad("pred_us", 10, true) + pad("meas_us", 10, true) +
         pad("GB/s", 9, true) + pad("%peak", 7, true) +
         pad("TFLOP/s", 9, true) + "  check\n";
  double predicted = 0;
  int64_t bytes = 0, flops = 0;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep &s = plan.steps[i];
    predicted += s.predictedUs;
    bytes += s.bytes;
    flops += s.flops;
    std::string name = s.name.size() > 20 ? s.name.substr(0, 19) + "~" : s.name;
    out += pad(std::to_string(i), 5) + pad(name, 22) +
           pad(stepKindName(s.kind), 7) +
           pad(format("%.2f", s.predictedUs), 10, true);
    if (bench && i < bench->steps.size()) {
      double us = bench->steps[i].medianUs;
      double gbps = achievedGBps(s.bytes, us);
      out += pad(format("%.2f", us), 10, true) +
             pad(gbps > 0 ? format("%.0f", gbps) : "-", 9, true) +
             pad(gbps > 0 && peak > 0 ? format("%.1f", 100 * gbps / peak) : "-",
                 7, true) +
             pad(s.flops > 0 ? format("%.1f", s.flops / (us * 1e6)) : "-", 9,
                 true);
    } else {
      out += pad("-", 10, true) + pad("-", 9, true) + pad("-", 7, true) +
             pad("-", 9, true);
    }
    out += "  ";
    if (r.checked && i < r.checks.size())
      out += checkCell(r.checks[i]);
    else
      out += "-";
    out += "\n";
  }
  out += pad("", 5) + pad("total (sum of steps)", 29) +
         pad(format("%.2f", predicted), 10, true);
  if (bench) {
    double sum = bench->sumOfStepMediansUs();
    double gbps = achievedGBps(bytes, sum);
    out += pad(format("%.2f", sum), 10, true) +
           pad(gbps > 0 ? format("%.0f", gbps) : "-", 9, true) +
           pad(gbps > 0 && peak > 0 ? format("%.1f", 100 * gbps / peak) : "-",
               7, true);
  }
  out += "\n";
  if (bench) {
    double gbps = achievedGBps(bytes, bench->planMedianUs);
    out += "whole plan (" +
           std::string(bench->usedGraph ? "CUDA graph replay"
                                        : "direct launches") +
           ", median of " + std::to_string(bench->options.reps) +
           "): " + format("%.2f", bench->planMedianUs) + " us (min " +
           format("%.2f", bench->planMinUs) + "), predicted " +
           format("%.2f", predicted) + " us";
    if (predicted > 0)
      out += " (measured/predicted " +
             format("%.2f", bench->planMedianUs / predicted) + ")";
    out += "\n";
    if (gbps > 0)
      out +=
          "achieved " + format("%.0f", gbps) +
          " GB/s = " + format("%.1f", peak > 0 ? 100 * gbps / peak : 0) +
          "% of " + plan.target.name + "'s " + format("%.0f", peak) +
          " GB/s, " +
          format("%.1f", plan.target.achievableBandwidthGBps > 0
                             ? 100 * gbps / plan.target.achievableBandwidthGBps
                             : 0) +
          "% of its achievable " +
          format("%.0f", plan.target.achievableBandwidthGBps) + " GB/s\n";
    if (!bench->note.empty())
      out += "note: " + bench->note + "\n";
  }
  out += formatGemmChoices(r.gemmChoices);
  if (r.checked) {
    size_t passed = 0;
    for (const StepCheck &c : r.checks)
      passed += c.passed;
    out += "check: " + std::to_string(passed) + "/" +
           std::to_string(r.checks.size()) + " steps passed" +
           ((r.checks.size() < plan.steps.size()) ? " (stopped early)" : "") +
           "\n";
  }
  return out;
}

std::string mlir::tfuse::rt::formatResultsJson(const RunResults &r) {
  const Plan &plan = *r.plan;
  const PlanTarget &target = plan.target;
  // 100 * gbps / peak, or 0 without a peak.
  auto percentOf = [](double gbps, double peak) {
    return peak > 0 ? 100 * gbps / peak : 0.0;
  };
  ordered_json doc = ordered_json::object();
  doc["schema_version"] = kResultsSchemaVersion;
  doc["bundle"] = r.bundleDir;
  doc["function"] = plan.function;
  doc["target"] = {
      {"name", target.name},
      {"sm_arch", target.smArch},
      {"bandwidth_gbps", number(target.bandwidthGBps)},
      {"achievable_bandwidth_gbps", number(target.achievableBandwidthGBps)}};
  doc["device"] = {{"name", r.device.name},
                   {"sm_arch", r.device.smArch},
                   {"driver_version", r.device.driverVersion},
                   {"memory_bytes", r.device.memoryBytes},
                   {"sm_count", r.device.smCount},
                   {"module", r.device.moduleSource}};
  doc["seed"] = r.seed;

  ordered_json inputs = ordered_json::array();
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    const PlanBuffer &b = plan.buffers[plan.inputs[i]];
    inputs.push_back(
        {{"buffer", b.id},
         {"name", b.name},
         {"source", i < r.inputSources.size() ? r.inputSources[i] : ""}});
  }
  doc["inputs"] = std::move(inputs);

  ordered_json steps = ordered_json::array();
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep &s = plan.steps[i];
    ordered_json step = {{"index", i},
                         {"name", s.name},
                         {"kind", stepKindName(s.kind)},
                         {"predicted_us", number(s.predictedUs)},
                         {"bytes", s.bytes},
                         {"flops", s.flops}};
    if (i < r.gemmChoices.size() && r.gemmChoices[i]) {
      const GemmChoice &g = *r.gemmChoices[i];
      ordered_json algorithm = {{"candidates", g.candidates},
                                {"chosen", g.chosen},
                                {"tuned", g.tuned}};
      if (g.tuned) {
        algorithm["heuristic_us"] = number(g.heuristicUs);
        algorithm["chosen_us"] = number(g.chosenUs);
      }
      step["gemm_algorithm"] = std::move(algorithm);
    }
    if (r.bench && i < r.bench->steps.size()) {
      const StepTiming &t = r.bench->steps[i];
      double gbps = achievedGBps(s.bytes, t.medianUs);
      step["measured_us"] = number(t.medianUs);
      step["measured_min_us"] = number(t.minUs);
      step["measured_max_us"] = number(t.maxUs);
      step["achieved_gbps"] = number(gbps);
      step["pct_bandwidth"] = number(percentOf(gbps, target.bandwidthGBps));
      step["pct_achievable_bandwidth"] =
          number(percentOf(gbps, target.achievableBandwidthGBps));
      step["achieved_tflops"] = number(
          s.flops > 0 && t.medianUs > 0 ? s.flops / (t.medianUs * 1e6) : 0.0);
      step["measured_over_predicted"] =
          number(s.predictedUs > 0 ? t.medianUs / s.predictedUs : 0.0);
    }
    if (r.checked && i < r.checks.size()) {
      const StepCheck &c = r.checks[i];
      ordered_json check = {{"passed", c.passed}};
      if (!c.error.empty())
        check["error"] = c.error;
      check["sampled"] = c.sampled;
      check["max_abs_error"] = number(c.maxAbsError);
      check["max_rel_error"] = number(c.maxRelError);
      check["reference_seconds"] = number(c.referenceSeconds);
      ordered_json outputs = ordered_json::array();
      for (const OutputCheck &o : c.outputs) {
        const TensorComparison &cmp = o.comparison;
        const PlanBuffer &b = plan.buffers[o.buffer];
        ordered_json output = {{"buffer", b.id},
                               {"name", b.name},
                               {"compared", cmp.compared},
                               {"failures", cmp.failures},
                               {"rtol", number(cmp.tolerance.rtol)},
                               {"atol", number(cmp.tolerance.atol)},
                               {"max_abs_error", number(cmp.maxAbsError)},
                               {"max_rel_error", number(cmp.maxRelError)}};
        if (cmp.worstIndex >= 0) {
          // The multi-dimensional index, as numbers.
          std::vector<int64_t> index(b.shape.size(), 0);
          int64_t flat = cmp.worstIndex;
          for (size_t d = b.shape.size(); d-- > 0;) {
            index[d] = flat % b.shape[d];
            flat /= b.shape[d];
          }
          output["worst"] = {{"index", index},
                             {"flat_index", cmp.worstIndex},
                             {"gpu", number(cmp.worstGpu)},
                             {"reference", number(cmp.worstRef)},
                             {"error_over_allowance", number(cmp.worstRatio)}};
        }
        outputs.push_back(std::move(output));
      }
      check["outputs"] = std::move(outputs);
      step["check"] = std::move(check);
    }
    steps.push_back(std::move(step));
  }
  doc["steps"] = std::move(steps);

  int64_t bytes = 0, flops = 0;
  for (const PlanStep &s : plan.steps) {
    bytes += s.bytes;
    flops += s.flops;
  }
  ordered_json totals = {{"predicted_us", number(plan.predictedTotalUs())},
                         {"bytes", bytes},
                         {"flops", flops}};
  if (r.bench) {
    const BenchResult &b = *r.bench;
    totals["warmup"] = b.options.warmup;
    totals["reps"] = b.options.reps;
    totals["l2_flushed"] = b.options.flushL2;
    totals["cuda_graph"] = b.usedGraph;
    if (!b.note.empty())
      totals["note"] = b.note;
    totals["plan_median_us"] = number(b.planMedianUs);
    totals["plan_min_us"] = number(b.planMinUs);
    totals["sum_of_step_medians_us"] = number(b.sumOfStepMediansUs());
    double gbps = achievedGBps(bytes, b.planMedianUs);
    totals["achieved_gbps"] = number(gbps);
    totals["pct_bandwidth"] = number(percentOf(gbps, target.bandwidthGBps));
    totals["pct_achievable_bandwidth"] =
        number(percentOf(gbps, target.achievableBandwidthGBps));
    totals["measured_over_predicted"] = number(
        plan.predictedTotalUs() > 0 ? b.planMedianUs / plan.predictedTotalUs()
                                    : 0.0);
  }
  doc["totals"] = std::move(totals);

  if (r.checked) {
    const StepCheck *failure = r.firstFailure();
    ordered_json check = {
        {"passed", failure == nullptr && r.checks.size() == plan.steps.size()},
        {"steps_checked", r.checks.size()}};
    if (failure) {
      check["first_failing_step"] = failure->step;
      check["message"] = describeCheckFailure(plan, *failure);
    } else {
      check["first_failing_step"] = nullptr;
    }
    doc["check"] = std::move(check);
  }

  ordered_json saved = ordered_json::array();
  for (const std::string &path : r.savedOutputs)
    saved.push_back(path);
  doc["saved_outputs"] = std::move(saved);
  // Bytes that are not UTF-8 (a path, a device name) become U+FFFD instead
  // of failing the dump.
  return doc.dump(2, ' ', /*ensure_ascii=*/false,
                  ordered_json::error_handler_t::replace) +
         "\n";
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

namespace {

/// A canonical spelling of `path` for comparison: realpath when the file
/// exists, else realpath of its directory + its base name.
std::string canonicalPath(const std::string &path) {
  if (char *resolved = ::realpath(path.c_str(), nullptr)) {
    std::string out = resolved;
    std::free(resolved);
    return out;
  }
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (dir.empty())
    dir = "/";
  if (char *resolved = ::realpath(dir.c_str(), nullptr)) {
    std::string out = resolved;
    std::free(resolved);
    return out + "/" + base;
  }
  return path;
}

} // namespace

bool mlir::tfuse::rt::checkOutputIsNotAnInput(
    const std::string &output, const std::vector<std::string> &inputs,
    std::string &error) {
  struct stat outStat;
  bool outExists = ::stat(output.c_str(), &outStat) == 0;
  std::string outCanonical = canonicalPath(output);
  for (const std::string &input : inputs) {
    struct stat inStat;
    bool same = false;
    if (outExists && ::stat(input.c_str(), &inStat) == 0)
      same = inStat.st_dev == outStat.st_dev && inStat.st_ino == outStat.st_ino;
    same = same || canonicalPath(input) == outCanonical;
    if (same) {
      error =
          "refusing to write '" + output + "': it is the input '" + input + "'";
      return false;
    }
  }
  return true;
}

bool mlir::tfuse::rt::writeFileAtomically(const std::string &path,
                                          const std::string &contents,
                                          std::string &error) {
  std::string temp = path + ".tmp-XXXXXX";
  std::vector<char> name(temp.begin(), temp.end());
  name.push_back('\0');
  int fd = ::mkstemp(name.data());
  if (fd < 0) {
    error = "cannot create a temporary file beside '" + path +
            "': " + std::strerror(errno);
    return false;
  }
  std::string tempPath(name.data());
  const char *data = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      error = "cannot write '" + tempPath + "': " + std::strerror(errno);
      ::close(fd);
      ::unlink(tempPath.c_str());
      return false;
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  // mkstemp creates the file 0600; give it the usual permissions.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  if (::close(fd) != 0) {
    error = "cannot write '" + tempPath + "': " + std::strerror(errno);
    ::unlink(tempPath.c_str());
    return false;
  }
  if (::rename(tempPath.c_str(), path.c_str()) != 0) {
    error = "cannot rename '" + tempPath + "' to '" + path +
            "': " + std::strerror(errno);
    ::unlink(tempPath.c_str());
    return false;
  }
  return true;
}
