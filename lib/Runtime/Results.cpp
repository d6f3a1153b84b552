//===- Results.cpp - tfuse-run's results: table and JSON --------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the human table and the JSON document of a run, a
// small JSON writer (hand-written escaping that always yields valid JSON),
// and the safe, atomic file output.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/Results.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir::tfuse;
using namespace mlir::tfuse::rt;

//===----------------------------------------------------------------------===//
// JSON text
//===----------------------------------------------------------------------===//

namespace {

/// Length of the valid UTF-8 sequence at s[i], or 0 if invalid.
size_t utf8SequenceLength(std::string_view s, size_t i) {
  unsigned char c = s[i];
  size_t n;
  uint32_t min;
  if (c < 0x80)
    return 1;
  if ((c & 0xe0) == 0xc0) {
    n = 2;
    min = 0x80;
  } else if ((c & 0xf0) == 0xe0) {
    n = 3;
    min = 0x800;
  } else if ((c & 0xf8) == 0xf0) {
    n = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size())
    return 0;
  uint32_t cp = c & (0x7f >> n);
  for (size_t k = 1; k < n; ++k) {
    unsigned char cc = s[i + k];
    if ((cc & 0xc0) != 0x80)
      return 0;
    cp = (cp << 6) | (cc & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return n;
}

} // namespace

std::string mlir::tfuse::rt::jsonString(std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    switch (c) {
    case '"':
      out += "\\\"";
      ++i;
      continue;
    case '\\':
      out += "\\\\";
      ++i;
      continue;
    case '\n':
      out += "\\n";
      ++i;
      continue;
    case '\r':
      out += "\\r";
      ++i;
      continue;
    case '\t':
      out += "\\t";
      ++i;
      continue;
    default:
      break;
    }
    if (c < 0x20 || c == 0x7f) {
      out += "\\u00";
      out += hex[c >> 4];
      out += hex[c & 15];
      ++i;
      continue;
    }
    size_t n = utf8SequenceLength(s, i);
    if (n == 0) {
      out += "\\ufffd";
      ++i;
      continue;
    }
    out.append(s.data() + i, n);
    i += n;
  }
  return out + "\"";
}

std::string mlir::tfuse::rt::jsonNumber(double value) {
  if (!std::isfinite(value))
    return "null";
  return formatJsonNumber(value);
}

namespace {

/// Builds indented JSON. Callers pair begin/end; keys are given before
/// values inside objects.
class JsonWriter {
public:
  void beginObject() { open('{'); }
  void endObject() { close('}'); }
  void beginArray() { open('['); }
  void endArray() { close(']'); }

  void key(std::string_view k) {
    separate();
    out += jsonString(k) + ": ";
    afterKey = true;
  }
  void value(std::string_view s) { raw(jsonString(s)); }
  void value(const char *s) { raw(jsonString(s)); }
  void value(const std::string &s) { raw(jsonString(s)); }
  void value(double d) { raw(jsonNumber(d)); }
  void value(int64_t i) { raw(std::to_string(i)); }
  void value(uint64_t i) { raw(std::to_string(i)); }
  void value(int i) { raw(std::to_string(i)); }
  void value(bool b) { raw(b ? "true" : "false"); }
  void null() { raw("null"); }

  template <typename T> void field(std::string_view k, const T &v) {
    key(k);
    value(v);
  }
  void intArray(const std::vector<int64_t> &values) {
    beginArray();
    inlineMode = true;
    for (int64_t v : values)
      value(v);
    inlineMode = false;
    endArrayInline();
  }

  std::string take() { return std::move(out) + "\n"; }

private:
  void raw(const std::string &text) {
    separate();
    out += text;
  }
  void separate() {
    if (afterKey) {
      afterKey = false;
      return;
    }
    if (!first.empty()) {
      if (!first.back())
        out += ",";
      first.back() = false;
      if (inlineMode) {
        if (out.back() == ',')
          out += ' ';
      } else {
        newline();
      }
    }
  }
  void open(char c) {
    separate();
    out += c;
    first.push_back(true);
  }
  void close(char c) {
    bool empty = first.back();
    first.pop_back();
    if (!empty)
      newline();
    out += c;
  }
  void endArrayInline() {
    first.pop_back();
    out += ']';
  }
  void newline() {
    out += '\n';
    out.append(2 * first.size(), ' ');
  }

  std::string out;
  std::vector<bool> first;
  bool afterKey = false;
  bool inlineMode = false;
};

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
  JsonWriter w;
  w.beginObject();
  w.field("schema_version", kResultsSchemaVersion);
  w.field("bundle", r.bundleDir);
  w.field("function", plan.function);

  w.key("target");
  w.beginObject();
  w.field("name", plan.target.name);
  w.field("sm_arch", plan.target.smArch);
  w.field("bandwidth_gbps", plan.target.bandwidthGBps);
  w.field("achievable_bandwidth_gbps", plan.target.achievableBandwidthGBps);
  w.endObject();

  w.key("device");
  w.beginObject();
  w.field("name", r.device.name);
  w.field("sm_arch", r.device.smArch);
  w.field("driver_version", r.device.driverVersion);
  w.field("memory_bytes", r.device.memoryBytes);
  w.field("sm_count", r.device.smCount);
  w.field("module", r.device.moduleSource);
  w.endObject();

  w.field("seed", r.seed);
  w.key("inputs");
  w.beginArray();
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    const PlanBuffer &b = plan.buffers[plan.inputs[i]];
    w.beginObject();
    w.field("buffer", b.id);
    w.field("name", b.name);
    w.field("source", i < r.inputSources.size() ? r.inputSources[i] : "");
    w.endObject();
  }
  w.endArray();

  w.key("steps");
  w.beginArray();
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PlanStep &s = plan.steps[i];
    w.beginObject();
    w.field("index", i);
    w.field("name", s.name);
    w.field("kind", stepKindName(s.kind));
    w.field("predicted_us", s.predictedUs);
    w.field("bytes", s.bytes);
    w.field("flops", s.flops);
    if (r.bench && i < r.bench->steps.size()) {
      const StepTiming &t = r.bench->steps[i];
      double gbps = achievedGBps(s.bytes, t.medianUs);
      w.field("measured_us", t.medianUs);
      w.field("measured_min_us", t.minUs);
      w.field("measured_max_us", t.maxUs);
      w.field("achieved_gbps", gbps);
      w.field("pct_bandwidth", plan.target.bandwidthGBps > 0
                                   ? 100 * gbps / plan.target.bandwidthGBps
                                   : 0.0);
      w.field("pct_achievable_bandwidth",
              plan.target.achievableBandwidthGBps > 0
                  ? 100 * gbps / plan.target.achievableBandwidthGBps
                  : 0.0);
      w.field("achieved_tflops", s.flops > 0 && t.medianUs > 0
                                     ? s.flops / (t.medianUs * 1e6)
                                     : 0.0);
      w.field("measured_over_predicted",
              s.predictedUs > 0 ? t.medianUs / s.predictedUs : 0.0);
    }
    if (r.checked && i < r.checks.size()) {
      const StepCheck &c = r.checks[i];
      w.key("check");
      w.beginObject();
      w.field("passed", c.passed);
      if (!c.error.empty())
        w.field("error", c.error);
      w.field("sampled", c.sampled);
      w.field("max_abs_error", c.maxAbsError);
      w.field("max_rel_error", c.maxRelError);
      w.field("reference_seconds", c.referenceSeconds);
      w.key("outputs");
      w.beginArray();
      for (const OutputCheck &o : c.outputs) {
        const TensorComparison &cmp = o.comparison;
        const PlanBuffer &b = plan.buffers[o.buffer];
        w.beginObject();
        w.field("buffer", b.id);
        w.field("name", b.name);
        w.field("compared", cmp.compared);
        w.field("failures", cmp.failures);
        w.field("rtol", cmp.tolerance.rtol);
        w.field("atol", cmp.tolerance.atol);
        w.field("max_abs_error", cmp.maxAbsError);
        w.field("max_rel_error", cmp.maxRelError);
        if (cmp.worstIndex >= 0) {
          w.key("worst");
          w.beginObject();
          w.key("index");
          // The multi-dimensional index, as numbers.
          std::vector<int64_t> index(b.shape.size(), 0);
          int64_t flat = cmp.worstIndex;
          for (size_t d = b.shape.size(); d-- > 0;) {
            index[d] = flat % b.shape[d];
            flat /= b.shape[d];
          }
          w.intArray(index);
          w.field("flat_index", cmp.worstIndex);
          w.field("gpu", cmp.worstGpu);
          w.field("reference", cmp.worstRef);
          w.field("error_over_allowance", cmp.worstRatio);
          w.endObject();
        }
        w.endObject();
      }
      w.endArray();
      w.endObject();
    }
    w.endObject();
  }
  w.endArray();

  w.key("totals");
  w.beginObject();
  w.field("predicted_us", plan.predictedTotalUs());
  int64_t bytes = 0, flops = 0;
  for (const PlanStep &s : plan.steps) {
    bytes += s.bytes;
    flops += s.flops;
  }
  w.field("bytes", bytes);
  w.field("flops", flops);
  if (r.bench) {
    const BenchResult &b = *r.bench;
    w.field("warmup", b.options.warmup);
    w.field("reps", b.options.reps);
    w.field("l2_flushed", b.options.flushL2);
    w.field("cuda_graph", b.usedGraph);
    if (!b.note.empty())
      w.field("note", b.note);
    w.field("plan_median_us", b.planMedianUs);
    w.field("plan_min_us", b.planMinUs);
    w.field("sum_of_step_medians_us", b.sumOfStepMediansUs());
    double gbps = achievedGBps(bytes, b.planMedianUs);
    w.field("achieved_gbps", gbps);
    w.field("pct_bandwidth", plan.target.bandwidthGBps > 0
                                 ? 100 * gbps / plan.target.bandwidthGBps
                                 : 0.0);
    w.field("pct_achievable_bandwidth",
            plan.target.achievableBandwidthGBps > 0
                ? 100 * gbps / plan.target.achievableBandwidthGBps
                : 0.0);
    w.field("measured_over_predicted",
            plan.predictedTotalUs() > 0
                ? b.planMedianUs / plan.predictedTotalUs()
                : 0.0);
  }
  w.endObject();

  if (r.checked) {
    w.key("check");
    w.beginObject();
    const StepCheck *failure = r.firstFailure();
    w.field("passed",
            failure == nullptr && r.checks.size() == plan.steps.size());
    w.field("steps_checked", r.checks.size());
    if (failure) {
      w.field("first_failing_step", failure->step);
      w.field("message", describeCheckFailure(plan, *failure));
    } else {
      w.key("first_failing_step");
      w.null();
    }
    w.endObject();
  }

  w.key("saved_outputs");
  w.beginArray();
  for (const std::string &path : r.savedOutputs)
    w.value(path);
  w.endArray();
  w.endObject();
  return w.take();
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
