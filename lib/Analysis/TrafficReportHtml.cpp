//===- TrafficReportHtml.cpp - the traffic report for people ----*- C++ -*-===//
//
// One self-contained HTML file (no scripts, no fetches): the figures every
// time follows from, totals fused and unfused, a roofline per target (small
// multiples that reflow with the window), measured against predicted when
// results are given, the bandwidth sweep, and the tables of the text report.
// Charts are SVG with a viewBox, so they scale; points carry their details in
// a hover title and link to their op's table row instead of printing labels
// that would overprint. Every text element states its font size, so a test
// can check from the coordinates alone that no two labels overlap.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Analysis/TrafficAnalysis.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::tfuse;

namespace {

constexpr double kTickFont = 10, kLabelFont = 11, kTitleFont = 12;

void writeEscaped(llvm::raw_ostream &os, llvm::StringRef text) {
  for (char c : text) {
    switch (c) {
    case '&':
      os << "&amp;";
      break;
    case '<':
      os << "&lt;";
      break;
    case '>':
      os << "&gt;";
      break;
    case '"':
      os << "&quot;";
      break;
    case '\'':
      os << "&#39;";
      break;
    default:
      os << c;
    }
  }
}

std::string escaped(llvm::StringRef text) {
  std::string out;
  llvm::raw_string_ostream os(out);
  writeEscaped(os, text);
  return out;
}

/// One axis of a chart: logarithmic over whole decades, or linear from 0.
struct Axis {
  bool log = true;
  double min = 1, max = 10;

  /// The decades (log) or a 0-based range (linear) that hold `values`,
  /// at least `minDecades` wide.
  static Axis fit(ArrayRef<double> values, bool log, int minDecades = 2) {
    Axis axis;
    axis.log = log;
    double lo = INFINITY, hi = 0;
    for (double v : values)
      if (v > 0 && std::isfinite(v)) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    if (!(hi > 0))
      lo = 1, hi = 10;
    if (!log) {
      axis.min = 0;
      axis.max = niceCeil(hi * 1.05);
      return axis;
    }
    double a = std::floor(std::log10(lo)), b = std::ceil(std::log10(hi));
    if (b <= a)
      b = a + 1;
    while (b - a < minDecades) {
      a -= 0.5;
      b += 0.5;
    }
    axis.min = std::pow(10, std::floor(a));
    axis.max = std::pow(10, std::ceil(b));
    return axis;
  }

  /// A round number at least `v` whose fifths are round too.
  static double niceCeil(double v) {
    double p = std::pow(10, std::floor(std::log10(v)));
    for (double m : {1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0})
      if (m * p >= v)
        return m * p;
    return 10 * p;
  }

  /// Position in [0, 1] along the axis.
  double at(double v) const {
    if (!log)
      return (v - min) / (max - min);
    v = std::min(max, std::max(min, v));
    return (std::log10(v) - std::log10(min)) /
           (std::log10(max) - std::log10(min));
  }

  /// Tick values: decades (every other one past 8), or 5 linear steps.
  std::vector<double> ticks() const {
    std::vector<double> values;
    if (!log) {
      for (int i = 0; i <= 5; ++i)
        values.push_back(min + (max - min) * i / 5);
      return values;
    }
    int decades = std::lround(std::log10(max / min));
    int step = decades > 8 ? 2 : 1;
    for (int i = 0; i <= decades; i += step)
      values.push_back(min * std::pow(10, i));
    return values;
  }
};

/// A chart's plotting area inside a fixed viewBox.
struct Chart {
  Axis xAxis, yAxis;
  double left = 64, top = 16, width = 420, height = 260;
  double viewWidth = 500, viewHeight = 330;

  double x(double v) const { return left + width * xAxis.at(v); }
  double y(double v) const { return top + height - height * yAxis.at(v); }
  double right() const { return left + width; }
  double bottom() const { return top + height; }
};

void openSvg(llvm::raw_ostream &os, const Chart &chart, llvm::StringRef label) {
  os << llvm::format("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 "
                     "%.0f %.0f' role='img' aria-label='%s'>\n",
                     chart.viewWidth, chart.viewHeight, escaped(label).c_str());
}

void writeText(llvm::raw_ostream &os, double x, double y, double size,
               llvm::StringRef anchor, llvm::StringRef cssClass,
               llvm::StringRef text, llvm::StringRef transform = "") {
  os << llvm::format("<text x='%.1f' y='%.1f' font-size='%.0f' "
                     "text-anchor='%s' class='%s'",
                     x, y, size, anchor.str().c_str(), cssClass.str().c_str());
  if (!transform.empty())
    os << " transform='" << transform << "'";
  os << ">";
  writeEscaped(os, text);
  os << "</text>\n";
}

std::string formatTick(double v) {
  char buffer[32];
  if (v != 0 && (std::abs(v) >= 1e5 || std::abs(v) < 1e-2))
    std::snprintf(buffer, sizeof buffer, "1e%d",
                  static_cast<int>(std::lround(std::log10(v))));
  else
    std::snprintf(buffer, sizeof buffer, "%g", v);
  return buffer;
}

void writeAxes(llvm::raw_ostream &os, const Chart &chart,
               llvm::StringRef xTitle, llvm::StringRef yTitle) {
  os << llvm::format("<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' "
                     "class='frame'/>\n",
                     chart.left, chart.top, chart.width, chart.height);
  for (double v : chart.xAxis.ticks()) {
    os << llvm::format("<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' "
                       "class='grid'/>\n",
                       chart.x(v), chart.top, chart.x(v), chart.bottom());
    writeText(os, chart.x(v), chart.bottom() + 14, kTickFont, "middle", "tick",
              formatTick(v));
  }
  for (double v : chart.yAxis.ticks()) {
    os << llvm::format("<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' "
                       "class='grid'/>\n",
                       chart.left, chart.y(v), chart.right(), chart.y(v));
    writeText(os, chart.left - 5, chart.y(v) + 3.5, kTickFont, "end", "tick",
              formatTick(v));
  }
  writeText(os, chart.left + chart.width / 2, chart.bottom() + 32, kTitleFont,
            "middle", "axis-title", xTitle);
  double cy = chart.top + chart.height / 2;
  writeText(os, 14, cy, kTitleFont, "middle", "axis-title", yTitle,
            llvm::formatv("rotate(-90 14 {0:F1})", cy).str());
}

/// A kernel's peak as the cost model uses it (tensor work at the GEMM
/// efficiency): the roof its points sit under.
struct Roof {
  std::string label;
  double tflops;
};

std::vector<Roof> roofsOf(const GpuTarget &target,
                          const TrafficReport &report) {
  bool bf16 = false, fp16 = false, tf32 = false;
  for (const KernelCost &kernel : report.kernels) {
    bf16 |= kernel.computeClass == ComputeClass::Bf16Tensor;
    fp16 |= kernel.computeClass == ComputeClass::Fp16Tensor;
    tf32 |= kernel.computeClass == ComputeClass::Tf32Tensor;
  }
  std::vector<Roof> roofs = {{"fp32", target.fp32Tflops}};
  auto tensor = [&](const char *name, ComputeClass computeClass) {
    double peak = getPeakTflops(target, computeClass) * target.gemmEfficiency;
    roofs.push_back(
        {llvm::formatv("{0} tensor x {1:F2}", name, target.gemmEfficiency)
             .str(),
         peak});
  };
  if (bf16 || !(fp16 || tf32))
    tensor("bf16", ComputeClass::Bf16Tensor);
  if (tf32)
    tensor("tf32", ComputeClass::Tf32Tensor);
  if (fp16)
    tensor("fp16", ComputeClass::Fp16Tensor);
  return roofs;
}

/// Where each kernel sits on a roofline: intensity, predicted TFLOP/s and,
/// where measured, measured TFLOP/s.
struct RooflinePoint {
  size_t kernel, op;
  double intensity, predictedTflops, measuredTflops = 0;
  double predictedUs, measuredUs = 0;
};

std::vector<RooflinePoint> rooflinePoints(const TrafficReport &report,
                                          size_t targetIndex) {
  const GpuTarget &target = report.targets[targetIndex];
  std::vector<RooflinePoint> points;
  for (auto [opIndex, op] : llvm::enumerate(report.ops))
    for (size_t k = op.firstKernel; k < op.firstKernel + op.numKernels; ++k) {
      const KernelCost &kernel = report.kernels[k];
      if (kernel.flops == 0 || kernel.bytes() == 0)
        continue;
      double us = kernel.timeOn(target).totalUs;
      points.push_back({k, opIndex, double(kernel.flops) / kernel.bytes(),
                        kernel.flops / (us * 1e6), 0, us});
    }
  for (const MeasuredRun &run : report.measured) {
    if (run.target != targetIndex)
      continue;
    for (const MeasuredKernel &entry : run.kernels)
      for (RooflinePoint &point : points)
        if (point.kernel == entry.kernel && entry.measuredUs > 0) {
          point.measuredUs = entry.measuredUs;
          point.measuredTflops =
              report.kernels[entry.kernel].flops / (entry.measuredUs * 1e6);
        }
  }
  return points;
}

std::string opClassOf(const TrafficReport &report, size_t op) {
  return stringifyOpClass(report.ops[op].opClass).str();
}

void writePoint(llvm::raw_ostream &os, const TrafficReport &report, size_t op,
                const KernelCost &kernel, double cx, double cy,
                llvm::StringRef cssClass, llvm::StringRef title) {
  os << "<a href='#op-" << op << "'><circle cx='" << llvm::format("%.1f", cx)
     << "' cy='" << llvm::format("%.1f", cy) << "' r='4' class='" << cssClass
     << "'><title>#" << op << " " << escaped(kernel.id) << " "
     << escaped(report.ops[op].name) << ": " << escaped(title)
     << "</title></circle></a>\n";
}

void writeRoofline(llvm::raw_ostream &os, const TrafficReport &report,
                   size_t targetIndex) {
  const GpuTarget &target = report.targets[targetIndex];
  std::vector<RooflinePoint> points = rooflinePoints(report, targetIndex);
  std::vector<Roof> roofs = roofsOf(target, report);
  double bandwidthTBps = target.achievableBandwidthGBps() / 1e3;

  std::vector<double> xs, ys;
  for (const RooflinePoint &p : points) {
    xs.push_back(p.intensity);
    ys.push_back(p.predictedTflops);
    if (p.measuredTflops > 0)
      ys.push_back(p.measuredTflops);
  }
  for (const Roof &roof : roofs) {
    xs.push_back(roof.tflops / bandwidthTBps);
    ys.push_back(roof.tflops);
  }
  Chart chart;
  chart.xAxis = Axis::fit(xs, /*log=*/true, 3);
  chart.yAxis = Axis::fit(ys, /*log=*/true, 3);

  os << "<figure class='chart'><figcaption>";
  writeEscaped(os, target.displayName + " (" + target.name + ")");
  os << "</figcaption>\n";
  openSvg(os, chart, "roofline of " + target.name);
  writeAxes(os, chart, "arithmetic intensity (FLOP/byte)", "TFLOP/s");
  os << llvm::format("<clipPath id='plot-%zu'><rect x='%.1f' y='%.1f' "
                     "width='%.1f' height='%.1f'/></clipPath>\n<g "
                     "clip-path='url(#plot-%zu)'>\n",
                     targetIndex, chart.left, chart.top, chart.width,
                     chart.height, targetIndex);
  // Each roof: the memory slope up to its ridge, then flat.
  for (const Roof &roof : roofs) {
    double ridge = roof.tflops / bandwidthTBps;
    double startX = chart.xAxis.min;
    os << llvm::format("<polyline class='roof' points='%.1f,%.1f %.1f,%.1f "
                       "%.1f,%.1f'/>\n",
                       chart.x(startX), chart.y(startX * bandwidthTBps),
                       chart.x(ridge), chart.y(roof.tflops), chart.right(),
                       chart.y(roof.tflops));
  }
  for (const RooflinePoint &p : points) {
    const KernelCost &kernel = report.kernels[p.kernel];
    double cx = chart.x(p.intensity), cy = chart.y(p.predictedTflops);
    if (p.measuredTflops > 0) {
      double my = chart.y(p.measuredTflops);
      os << llvm::format("<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' "
                         "class='link'/>\n",
                         cx, cy, cx, my);
      writePoint(os, report, p.op, kernel, cx, my, "measured",
                 llvm::formatv("measured {0:F2} us, {1:F3} TFLOP/s",
                               p.measuredUs, p.measuredTflops)
                     .str());
    }
    writePoint(os, report, p.op, kernel, cx, cy, "c-" + opClassOf(report, p.op),
               llvm::formatv("{0:F2} FLOP/B, predicted {1:F2} us, {2:F3} "
                             "TFLOP/s, {3}-bound",
                             p.intensity, p.predictedUs, p.predictedTflops,
                             stringifyBound(kernel.timeOn(target).bound))
                   .str());
  }
  os << "</g>\n";
  // Roof labels at the right end, above their line unless the one before
  // sits too close, then below it.
  double lastY = -1e9;
  std::vector<Roof> sorted = roofs;
  llvm::sort(sorted,
             [](const Roof &a, const Roof &b) { return a.tflops > b.tflops; });
  for (const Roof &roof : sorted) {
    double ly = chart.y(roof.tflops) - 4;
    if (ly - lastY < kLabelFont + 2)
      ly = chart.y(roof.tflops) + kLabelFont + 2;
    if (ly < chart.top + kLabelFont)
      ly = chart.y(roof.tflops) + kLabelFont + 2;
    writeText(
        os, chart.right() - 4, ly, kLabelFont, "end", "roof-label",
        llvm::formatv("{0} {1:F1} TFLOP/s", roof.label, roof.tflops).str());
    lastY = ly;
  }
  writeText(
      os, chart.left + 6, chart.top + kLabelFont + 2, kLabelFont, "start",
      "roof-label",
      llvm::formatv("{0:F0} GB/s achievable", target.achievableBandwidthGBps())
          .str());
  os << "</svg>\n";
  size_t withoutFlops = 0;
  for (const KernelCost &kernel : report.kernels)
    withoutFlops += kernel.flops == 0 && kernel.bytes() > 0;
  if (withoutFlops)
    os << "<p class='note'>" << withoutFlops
       << " kernels without arithmetic (copies) have no place on a roofline; "
          "they are in the tables.</p>\n";
  os << "</figure>\n";
}

/// Measured against predicted time, log-log, one point per measured kernel,
/// with the diagonal where they agree.
void writeMeasuredChart(llvm::raw_ostream &os, const TrafficReport &report,
                        const MeasuredRun &run) {
  const GpuTarget &target = report.targets[run.target];
  std::vector<double> values;
  for (const MeasuredKernel &entry : run.kernels) {
    values.push_back(entry.measuredUs);
    values.push_back(report.kernels[entry.kernel].timeOn(target).totalUs);
  }
  Chart chart;
  chart.xAxis = chart.yAxis = Axis::fit(values, /*log=*/true, 2);
  os << "<figure class='chart'><figcaption>";
  writeEscaped(os, run.device + ", @" + run.function + " against " +
                       target.name + " (" + run.file + ")");
  os << "</figcaption>\n";
  openSvg(os, chart, "measured against predicted");
  writeAxes(os, chart, "predicted us", "measured us");
  os << llvm::format("<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' "
                     "class='diagonal'/>\n",
                     chart.x(chart.xAxis.min), chart.y(chart.yAxis.min),
                     chart.x(chart.xAxis.max), chart.y(chart.yAxis.max));
  writeText(os, chart.right() - 4, chart.top + kLabelFont + 2, kLabelFont,
            "end", "roof-label", "measured = predicted");
  for (const MeasuredKernel &entry : run.kernels) {
    const KernelCost &kernel = report.kernels[entry.kernel];
    double predicted = kernel.timeOn(target).totalUs;
    size_t op = entry.op;
    writePoint(os, report, op, kernel, chart.x(predicted),
               chart.y(entry.measuredUs), "c-" + opClassOf(report, op),
               llvm::formatv("predicted {0:F2} us, measured {1:F2} us "
                             "({2:F2}x)",
                             predicted, entry.measuredUs,
                             entry.measuredUs / predicted)
                   .str());
  }
  os << "</svg>\n</figure>\n";
}

/// Predicted time against datasheet bandwidth, one line per target.
void writeSweepChart(llvm::raw_ostream &os, const TrafficReport &report) {
  const BandwidthSweep &sweep = report.sweep;
  if (sweep.bandwidthsGBps.empty())
    return;
  std::vector<double> times;
  for (const std::vector<double> &line : sweep.timeUs)
    times.insert(times.end(), line.begin(), line.end());
  Chart chart;
  chart.xAxis = Axis::fit(sweep.bandwidthsGBps, /*log=*/false);
  chart.yAxis = Axis::fit(times, /*log=*/false);
  os << "<h2 id='sweep'>Bandwidth sweep</h2>\n<p class='note'>Predicted time "
        "at each datasheet bandwidth; every target keeps its achievable "
        "fraction, L2 and peaks.</p>\n<figure class='chart wide'>\n";
  openSvg(os, chart, "bandwidth sweep");
  writeAxes(os, chart, "datasheet bandwidth (GB/s)", "predicted us");
  for (auto [index, line] : llvm::enumerate(sweep.timeUs)) {
    os << "<polyline class='series s" << index % 6 << "' points='";
    for (auto [bandwidth, time] : llvm::zip(sweep.bandwidthsGBps, line))
      os << llvm::format("%.1f,%.1f ", chart.x(bandwidth), chart.y(time));
    os << "'><title>" << escaped(report.targets[index].name)
       << "</title></polyline>\n";
  }
  os << "</svg>\n<p class='legend'>";
  for (auto [index, target] : llvm::enumerate(report.targets))
    os << "<span class='key s" << index % 6 << "'></span>"
       << escaped(target.name) << " ";
  os << "</p>\n</figure>\n";
}

void writeTargets(llvm::raw_ostream &os, const TrafficReport &report) {
  os << "<h2 id='targets'>Targets</h2>\n<div class='scroll'><table>\n<tr>"
        "<th>target</th><th>GPU</th><th>sm</th><th>datasheet GB/s</th>"
        "<th>achievable fraction</th><th>achievable GB/s</th><th>L2 MiB</th>"
        "<th>fp32 TFLOP/s</th><th>bf16 tensor TFLOP/s</th>"
        "<th>gemm_efficiency</th><th>tensor roof TFLOP/s</th>"
        "<th>launch us</th></tr>\n";
  for (const GpuTarget &target : report.targets)
    os << "<tr><td>" << escaped(target.name) << "</td><td>"
       << escaped(target.displayName) << "</td><td>" << escaped(target.smArch)
       << llvm::format(
              "</td><td>%.0f</td><td>%.2f</td><td>%.0f</td><td>%.0f"
              "</td><td>%.1f</td><td>%.1f</td><td>%.2f</td><td>%.1f"
              "</td><td>%.1f</td></tr>\n",
              target.memoryBandwidthGBps, target.achievableBandwidthFraction,
              target.achievableBandwidthGBps(), target.l2CacheMB,
              target.fp32Tflops, target.bf16TensorTflops, target.gemmEfficiency,
              target.bf16TensorTflops * target.gemmEfficiency,
              target.kernelLaunchOverheadUs);
  os << "</table></div>\n"
     << llvm::format(
            "<p class='note'>time = launch + max(DRAM bytes / achievable "
            "bandwidth + L2 bytes / (%.1f &#215; achievable), FLOPs / peak); "
            "a kernel's input is read from L2 when its producer wrote at most "
            "%.0f%% of L2 (docs/cost-model.md).</p>\n",
            kL2BandwidthMultiplier, 100 * kL2ResidentFraction);
}

void writeTotals(llvm::raw_ostream &os, const TrafficReport &report) {
  const Totals &totals = report.totals;
  os << "<h2 id='totals'>Totals</h2>\n<p>" << report.fused.kernels
     << " kernels, " << totals.bytesRead + totals.bytesWritten << " bytes ("
     << totals.bytesRead << " read, " << totals.bytesWritten << " written), "
     << totals.flops << " FLOPs.</p>\n<div class='scroll'><table>\n<tr>"
     << "<th>target</th><th>predicted us</th><th>bandwidth-bound share</th>";
  if (report.unfused)
    os << "<th>unfused us</th><th>fusion speedup</th>";
  os << "</tr>\n";
  for (auto [index, target] : llvm::enumerate(report.targets)) {
    const TargetTotals &sums = totals.targets[index];
    os << "<tr><td>" << escaped(target.displayName)
       << llvm::format("</td><td>%.2f</td><td>%.1f%%</td>", sums.timeUs,
                       100 * sums.bandwidthBoundShare());
    if (report.unfused) {
      double unfused = report.unfused->timeUs[index];
      os << llvm::format("<td>%.2f</td><td>%.3fx</td>", unfused,
                         sums.timeUs > 0 ? unfused / sums.timeUs : 0.0);
    }
    os << "</tr>\n";
  }
  os << "</table></div>\n";
  if (report.unfused)
    os << "<p>Unfused: the same IR with every fusion inlined, "
       << report.unfused->kernels << " kernels moving " << report.unfused->bytes
       << " bytes.</p>\n";
  for (const TargetComparison &comparison : report.comparisons)
    os << "<p>" << escaped(report.targets[comparison.other].name) << " against "
       << escaped(report.targets[comparison.baseline].name)
       << llvm::format(": %.3fx faster; its memory system alone would give "
                       "%.3fx, its peak FLOP/s alone %.3fx.</p>\n",
                       comparison.speedup, comparison.memorySystemSpeedup,
                       comparison.computeSpeedup);
}

void writeOpTable(llvm::raw_ostream &os, const TrafficReport &report) {
  os << "<h2 id='ops'>Ops</h2>\n<p class='note'>Numbered as report.json's "
        "ops.</p>\n<div class='scroll'><table>\n<tr><th>#</th><th>function"
        "</th><th>op</th><th>kernels</th><th>location</th><th>class</th>"
        "<th>bytes read</th><th>bytes written</th><th>FLOPs</th>"
        "<th>FLOP/B</th>";
  for (const GpuTarget &target : report.targets)
    os << "<th>" << escaped(target.name) << " us</th><th>bound</th><th>"
       << escaped(target.name) << " L2 bytes</th>";
  os << "</tr>\n";
  for (auto [index, op] : llvm::enumerate(report.ops)) {
    std::vector<std::string> ids;
    for (const KernelCost &kernel : report.kernelsOf(op))
      ids.push_back(kernel.id.empty() ? "(not compiled)" : kernel.id);
    os << "<tr id='op-" << index << "'><td>" << index << "</td><td>"
       << escaped(op.function) << "</td><td class='c-"
       << stringifyOpClass(op.opClass) << "'>" << escaped(op.name)
       << "</td><td>" << escaped(llvm::join(ids, " ")) << "</td><td>"
       << escaped(op.location) << "</td><td>" << stringifyOpClass(op.opClass)
       << "</td><td>" << op.bytesRead << "</td><td>" << op.bytesWritten
       << "</td><td>" << op.flops << "</td><td>"
       << llvm::format("%.2f", op.intensity()) << "</td>";
    for (const GpuTarget &target : report.targets) {
      OpTime time = report.timeOf(op, target);
      os << llvm::format("<td>%.2f</td><td>%s</td><td>%lld</td>",
                         time.time.totalUs, stringifyBound(time.time.bound),
                         (long long)time.l2Bytes);
    }
    os << "</tr>\n";
  }
  os << "</table></div>\n";
}

void writeMeasuredTable(llvm::raw_ostream &os, const TrafficReport &report,
                        const MeasuredRun &run) {
  const GpuTarget &target = report.targets[run.target];
  os << "<div class='scroll'><table>\n<tr><th>kernel</th><th>predicted us"
        "</th><th>measured us</th><th>GB/s</th><th>% of achievable</th>"
        "<th>measured / predicted</th></tr>\n";
  for (const MeasuredKernel &entry : run.kernels) {
    const KernelCost &kernel = report.kernels[entry.kernel];
    double predicted = kernel.timeOn(target).totalUs;
    double gbps = kernel.bytes() / (entry.measuredUs * 1e3);
    os << "<tr><td>" << escaped(kernel.id)
       << llvm::format("</td><td>%.2f</td><td>%.2f</td><td>%.1f</td><td>"
                       "%.1f%%</td><td>%.2fx</td></tr>\n",
                       predicted, entry.measuredUs, gbps,
                       100 * gbps / target.achievableBandwidthGBps(),
                       entry.measuredUs / predicted);
  }
  os << "</table></div>\n";
}

void writeFusions(llvm::raw_ostream &os, const TrafficReport &report) {
  if (report.fusions.empty() && report.decisions.empty())
    return;
  os << "<h2 id='fusions'>Fusions</h2>\n<div class='scroll'><table>\n<tr>"
        "<th>#</th><th>kind</th><th>members</th><th>bytes before</th>"
        "<th>bytes after</th><th>us before (each alone)</th><th>us after</th>"
        "<th>decided on</th></tr>\n";
  for (const FusionSummary &fusion : report.fusions)
    os << "<tr><td><a href='#op-" << fusion.op << "'>" << fusion.op
       << "</a></td><td>" << fusion.kind << "</td><td>"
       << escaped(llvm::join(fusion.members, " + ")) << "</td><td>"
       << fusion.bytesBefore << "</td><td>" << fusion.bytesAfter << "</td>"
       << llvm::format("<td>%.2f</td><td>%.2f</td>", fusion.predictedUnfusedUs,
                       fusion.predictedFusedUs)
       << "<td>" << escaped(fusion.target) << "</td></tr>\n";
  os << "</table></div>\n<h3>Decisions, grouped by reason</h3>\n"
        "<div class='scroll'><table>\n<tr><th>fused</th><th>count</th>"
        "<th>rule</th><th>why</th><th>pairs</th></tr>\n";
  for (const auto &group : groupDecisions(report.decisions)) {
    const DecisionSummary &first = *group.front();
    os << "<tr><td>" << (first.fused ? "yes" : "no") << "</td><td>"
       << group.size() << "</td><td>" << escaped(first.rule)
       << "</td><td class='text'>" << escaped(first.reason)
       << "</td><td class='text'>";
    for (const DecisionSummary *decision : group)
      os << escaped(decision->producer) << " &#8594; "
         << escaped(decision->kind + " kernel of " + decision->consumer)
         << "<br/>";
    os << "</td></tr>\n";
  }
  os << "</table></div>\n";
}

const char *kStyle =
    "body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1600px}"
    "table{border-collapse:collapse;margin:.5em 0;font-size:90%}"
    "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
    "td.text{text-align:left}th{background:#f0f0f0}"
    ".scroll{overflow-x:auto}"
    ".charts{display:grid;grid-template-columns:repeat(auto-fit,"
    "minmax(min(100%,440px),1fr));gap:1em}"
    "figure.chart{margin:0}figure.wide{max-width:640px}"
    "figcaption{font-weight:bold;margin:.3em 0}"
    "svg{width:100%;height:auto;display:block}"
    ".frame{fill:none;stroke:#888}.grid{stroke:#eee}"
    ".tick{fill:#555}.axis-title{fill:#333}"
    ".roof{fill:none;stroke:#c33;stroke-width:2}.roof-label{fill:#c33}"
    ".diagonal{stroke:#c33;stroke-dasharray:4 3}"
    ".link{stroke:#888;stroke-dasharray:2 2}"
    "circle{stroke:#fff;stroke-width:.5}"
    ".c-contraction{fill:#e08a00;color:#e08a00}"
    ".c-elementwise{fill:#2a6fdb;color:#2a6fdb}"
    ".c-reduction{fill:#2a9d55;color:#2a9d55}"
    ".c-layout{fill:#8a56c2;color:#8a56c2}"
    ".c-optimizer{fill:#555;color:#555}"
    "circle.measured{fill:none;stroke:#111;stroke-width:1.5}"
    ".series{fill:none;stroke-width:2}"
    ".s0{stroke:#2a6fdb;background:#2a6fdb}.s1{stroke:#e08a00;background:"
    "#e08a00}.s2{stroke:#2a9d55;background:#2a9d55}.s3{stroke:#c33;"
    "background:#c33}.s4{stroke:#8a56c2;background:#8a56c2}.s5{stroke:#555;"
    "background:#555}"
    ".key{display:inline-block;width:1.2em;height:.6em;margin:0 .3em 0 "
    "1em}.dot{display:inline-block;width:.7em;height:.7em;border-radius:50%;"
    "margin:0 .3em 0 1em}.ring{border:1.5px solid #111;background:none}"
    ".note{color:#666;font-size:90%}\n";

void writeLegend(llvm::raw_ostream &os, bool measured) {
  os << "<p class='legend'>";
  for (const char *opClass :
       {"contraction", "elementwise", "reduction", "layout"})
    os << "<span class='dot c-" << opClass << "' style='background:"
       << "currentColor'></span>" << opClass;
  if (measured)
    os << "<span class='dot ring'></span>measured (linked to its prediction)";
  os << " &#8212; hover a point for its numbers, click it for its op.</p>\n";
}

} // namespace

void mlir::tfuse::printHtmlReport(const TrafficReport &report,
                                  llvm::raw_ostream &os) {
  os << "<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'/>\n"
        "<meta name='viewport' content='width=device-width, "
        "initial-scale=1'/>\n<title>tfuse traffic report</title>\n<style>\n"
     << kStyle << "</style>\n</head>\n<body>\n<h1>tfuse traffic report</h1>\n";
  writeTargets(os, report);
  writeTotals(os, report);
  os << "<h2 id='rooflines'>Rooflines</h2>\n<p class='note'>One point per "
        "kernel at its predicted time, under the roofs the model uses "
        "(tensor peaks times gemm_efficiency).</p>\n";
  writeLegend(os, !report.measured.empty());
  os << "<div class='charts'>\n";
  for (size_t index = 0; index < report.targets.size(); ++index)
    writeRoofline(os, report, index);
  os << "</div>\n";
  if (!report.measured.empty()) {
    os << "<h2 id='measured'>Measured against predicted</h2>\n";
    for (const MeasuredRun &run : report.measured) {
      os << "<div class='charts'>\n";
      writeMeasuredChart(os, report, run);
      os << "<div>";
      writeMeasuredTable(os, report, run);
      if (run.planMedianUs > 0)
        os << llvm::format("<p>Whole plan replayed (CUDA graph, median): "
                           "%.2f us.</p>",
                           run.planMedianUs);
      os << "</div>\n</div>\n";
    }
  }
  writeSweepChart(os, report);
  writeFusions(os, report);
  writeOpTable(os, report);
  os << "</body>\n</html>\n";
}
