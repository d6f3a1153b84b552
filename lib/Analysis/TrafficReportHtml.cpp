//===- TrafficReportHtml.cpp - the traffic report for people ----*- C++ -*-===//
//
// One self-contained HTML file (no scripts, no fetches): the tables of the
// text report and, per target, an SVG roofline with every kernel as a point.
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
    default:
      os << c;
    }
  }
}

/// Log-log axes of a roofline: intensity (FLOP/byte) across, TFLOP/s up.
struct RooflineAxes {
  double minX = 1e-2, maxX = 1e4, minY = 1e-4, maxY = 1e4;
  double left = 70, top = 20, width = 560, height = 340;

  double x(double intensity) const {
    return left + width * (std::log10(intensity) - std::log10(minX)) /
                      (std::log10(maxX) - std::log10(minX));
  }
  double y(double tflops) const {
    return top + height -
           height * (std::log10(tflops) - std::log10(minY)) /
               (std::log10(maxY) - std::log10(minY));
  }
  double clampX(double v) const { return std::min(maxX, std::max(minX, v)); }
  double clampY(double v) const { return std::min(maxY, std::max(minY, v)); }
};

void writeAxes(llvm::raw_ostream &os, const RooflineAxes &axes) {
  os << llvm::format("<rect x='%.1f' y='%.1f' width='%.1f' height='%.1f' "
                     "class='frame'/>\n",
                     axes.left, axes.top, axes.width, axes.height);
  for (double v = axes.minX; v <= axes.maxX * 1.001; v *= 10)
    os << llvm::format("<text x='%.1f' y='%.1f' class='tick' "
                       "text-anchor='middle'>%g</text>\n",
                       axes.x(v), axes.top + axes.height + 16, v);
  for (double v = axes.minY; v <= axes.maxY * 1.001; v *= 10)
    os << llvm::format("<text x='%.1f' y='%.1f' class='tick' "
                       "text-anchor='end'>%g</text>\n",
                       axes.left - 6, axes.y(v) + 4, v);
  os << llvm::format("<text x='%.1f' y='%.1f' text-anchor='middle'>"
                     "arithmetic intensity (FLOP/byte)</text>\n",
                     axes.left + axes.width / 2, axes.top + axes.height + 36);
  os << llvm::format("<text x='16' y='%.1f' text-anchor='middle' "
                     "transform='rotate(-90 16 %.1f)'>TFLOP/s</text>\n",
                     axes.top + axes.height / 2, axes.top + axes.height / 2);
}

/// The memory roof (achievable bandwidth) and one ceiling per peak.
void writeRoofs(llvm::raw_ostream &os, const RooflineAxes &axes,
                const GpuTarget &target) {
  double bandwidthTBps = target.achievableBandwidthGBps() / 1e3;
  struct Peak {
    const char *label;
    double tflops;
  } peaks[] = {{"fp32", target.fp32Tflops},
               {"bf16 tensor", target.bf16TensorTflops}};
  for (const Peak &peak : peaks) {
    double ridge = peak.tflops / bandwidthTBps;
    double startX = axes.clampX(axes.minY / bandwidthTBps);
    os << llvm::format("<polyline class='roof' points='%.1f,%.1f %.1f,%.1f "
                       "%.1f,%.1f'/>\n",
                       axes.x(startX),
                       axes.y(axes.clampY(startX * bandwidthTBps)),
                       axes.x(axes.clampX(ridge)), axes.y(peak.tflops),
                       axes.x(axes.maxX), axes.y(peak.tflops));
    os << llvm::format("<text x='%.1f' y='%.1f' class='roof-label' "
                       "text-anchor='end'>%s %.1f TFLOP/s (ridge %.0f "
                       "FLOP/B)</text>\n",
                       axes.x(axes.maxX) - 4, axes.y(peak.tflops) - 4,
                       peak.label, peak.tflops, ridge);
  }
  os << llvm::format("<text x='%.1f' y='%.1f' class='roof-label'>%.0f GB/s"
                     "</text>\n",
                     axes.x(axes.minX) + 8,
                     axes.y(axes.clampY(axes.minX * 20 * bandwidthTBps)),
                     target.achievableBandwidthGBps());
}

void writeRoofline(llvm::raw_ostream &os, const TrafficReport &report,
                   const GpuTarget &target) {
  RooflineAxes axes;
  os << "<h3>Roofline: ";
  writeEscaped(os, target.displayName);
  os << "</h3>\n<svg xmlns='http://www.w3.org/2000/svg' width='660' "
        "height='410' role='img' class='roofline'>\n";
  writeAxes(os, axes);
  writeRoofs(os, axes, target);
  size_t unplotted = 0;
  for (auto [index, op] : llvm::enumerate(report.ops)) {
    KernelTime time = report.timeOf(op, target).time;
    if (!op.launchesKernel || op.flops == 0 || op.bytes() == 0) {
      unplotted += op.launchesKernel;
      continue;
    }
    double tflops = op.flops / (time.totalUs * 1e6);
    double cx = axes.x(axes.clampX(op.intensity()));
    double cy = axes.y(axes.clampY(tflops));
    os << llvm::format("<circle cx='%.1f' cy='%.1f' r='4' class='%s'>"
                       "<title>",
                       cx, cy, stringifyBound(time.bound));
    os << "#" << index + 1 << " ";
    writeEscaped(os, op.name + " " + op.location);
    os << llvm::format(": %.2f FLOP/B, %.3g TFLOP/s, %.2f us, %s-bound"
                       "</title></circle>\n",
                       op.intensity(), tflops, time.totalUs,
                       stringifyBound(time.bound));
    os << llvm::format("<text x='%.1f' y='%.1f' class='point-label'>%zu"
                       "</text>\n",
                       cx + 5, cy - 5, index + 1);
  }
  os << "</svg>\n";
  if (unplotted)
    os << "<p class='note'>" << unplotted
       << " kernels without arithmetic (layout ops) have no place on a "
          "roofline and are not plotted.</p>\n";
}

void writeOpTable(llvm::raw_ostream &os, const TrafficReport &report) {
  os << "<table>\n<tr><th>#</th><th>function</th><th>op</th><th>location"
        "</th><th>class</th><th>bytes read</th><th>bytes written</th>"
        "<th>FLOPs</th><th>FLOP/B</th>";
  for (const GpuTarget &target : report.targets) {
    os << "<th>";
    writeEscaped(os, target.name);
    os << " us</th><th>bound</th>";
  }
  os << "</tr>\n";
  for (auto [index, op] : llvm::enumerate(report.ops)) {
    os << "<tr><td>" << index + 1 << "</td><td>";
    writeEscaped(os, op.function);
    os << "</td><td>";
    writeEscaped(os, op.name);
    os << "</td><td>";
    writeEscaped(os, op.location);
    os << "</td><td>" << stringifyOpClass(op.opClass) << "</td><td>"
       << op.bytesRead << "</td><td>" << op.bytesWritten << "</td><td>"
       << op.flops << "</td><td>" << llvm::format("%.2f", op.intensity())
       << "</td>";
    for (const GpuTarget &target : report.targets) {
      KernelTime time = report.timeOf(op, target).time;
      os << llvm::format("<td>%.2f</td><td class='%s'>%s</td>", time.totalUs,
                         stringifyBound(time.bound),
                         stringifyBound(time.bound));
    }
    os << "</tr>\n";
  }
  os << "</table>\n";
}

void writeTotals(llvm::raw_ostream &os, const TrafficReport &report) {
  const Totals &totals = report.totals;
  os << "<p>" << totals.bytesRead + totals.bytesWritten << " bytes ("
     << totals.bytesRead << " read, " << totals.bytesWritten << " written), "
     << totals.flops << " FLOPs.</p>\n<table>\n<tr><th>target</th>"
     << "<th>predicted us</th><th>kernels</th><th>bandwidth-bound share</th>"
     << "</tr>\n";
  for (auto [target, sums] : llvm::zip(report.targets, totals.targets)) {
    os << "<tr><td>";
    writeEscaped(os, target.displayName);
    os << llvm::format("</td><td>%.2f</td><td>%lld</td><td>%.1f%%</td></tr>\n",
                       sums.timeUs, (long long)sums.kernels,
                       100 * sums.bandwidthBoundShare());
  }
  os << "</table>\n";
  for (const TargetComparison &comparison : report.comparisons) {
    os << "<p>";
    writeEscaped(os, report.targets[comparison.other].name);
    os << " against ";
    writeEscaped(os, report.targets[comparison.baseline].name);
    os << llvm::format(": %.3fx faster; its memory system alone would give "
                       "%.3fx, its peak FLOP/s alone %.3fx.</p>\n",
                       comparison.speedup, comparison.memorySystemSpeedup,
                       comparison.computeSpeedup);
  }
}

void writeFusions(llvm::raw_ostream &os, const TrafficReport &report) {
  if (report.fusions.empty() && report.decisions.empty())
    return;
  os << "<h2>Fusions</h2>\n<table>\n<tr><th>#</th><th>kind</th><th>members"
        "</th><th>bytes before</th><th>bytes after</th><th>us before</th>"
        "<th>us after</th><th>decided on</th></tr>\n";
  for (const FusionSummary &fusion : report.fusions) {
    os << "<tr><td>" << fusion.op + 1 << "</td><td>" << fusion.kind
       << "</td><td>";
    writeEscaped(os, llvm::join(fusion.members, " + "));
    os << "</td><td>" << fusion.bytesBefore << "</td><td>" << fusion.bytesAfter
       << "</td>"
       << llvm::format("<td>%.2f</td><td>%.2f</td>", fusion.predictedUnfusedUs,
                       fusion.predictedFusedUs)
       << "<td>";
    writeEscaped(os, fusion.target);
    os << "</td></tr>\n";
  }
  os << "</table>\n<h3>Decisions</h3>\n<table>\n<tr><th>fused</th><th>op"
        "</th><th>kernel of</th><th>rule</th><th>why</th></tr>\n";
  for (const DecisionSummary &decision : report.decisions) {
    os << "<tr><td>" << (decision.fused ? "yes" : "no") << "</td><td>";
    writeEscaped(os, decision.producer);
    os << "</td><td>";
    writeEscaped(os, decision.kind + " " + decision.consumer);
    os << "</td><td>";
    writeEscaped(os, decision.rule);
    os << "</td><td style='text-align:left'>";
    writeEscaped(os, decision.reason);
    os << "</td></tr>\n";
  }
  os << "</table>\n";
}

} // namespace

void mlir::tfuse::printHtmlReport(const TrafficReport &report,
                                  llvm::raw_ostream &os) {
  os << "<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'/>\n"
        "<title>tfuse traffic report</title>\n<style>\n"
        "body{font-family:sans-serif;margin:2em;color:#222}"
        "table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
        "th{background:#f0f0f0}"
        ".frame{fill:none;stroke:#888}.tick{font-size:10px;fill:#555}"
        ".roof{fill:none;stroke:#c33;stroke-width:2}"
        ".roof-label{font-size:11px;fill:#c33}"
        ".point-label{font-size:9px;fill:#333}"
        "circle.memory{fill:#2a6fdb}circle.compute{fill:#e08a00}"
        "circle.launch{fill:#999}td.memory{color:#2a6fdb}"
        "td.compute{color:#e08a00}.note{color:#666;font-size:90%}\n"
        "</style>\n</head>\n<body>\n<h1>tfuse traffic report</h1>\n";
  os << "<h2>Totals</h2>\n";
  writeTotals(os, report);
  os << "<h2>Ops</h2>\n";
  writeOpTable(os, report);
  writeFusions(os, report);
  os << "<h2>Rooflines</h2>\n<p class='note'>Each point is one kernel at its "
        "predicted time: blue memory-bound, orange compute-bound, grey "
        "launch-bound. Hover for details.</p>\n";
  for (const GpuTarget &target : report.targets)
    writeRoofline(os, report, target);
  os << "</body>\n</html>\n";
}
