#!/usr/bin/env python3
"""SVG charts of a benchmark run (standard library only).

python3 bench/plot.py RESULTS_DIR OUT_DIR writes
  OUT_DIR/benchmarks-gbps.svg      achieved GB/s per case: tfuse fused,
                                   torch.compile, eager, with the copy
                                   bandwidth as a line;
  OUT_DIR/benchmarks-roofline.svg  every measured tfuse kernel/GEMM step on
                                   the H200 roofline (log-log).
RESULTS_DIR holds summary.json and bench-runs.tgz from bench/device-bench.sh.
"""

import json
import math
import os
import sys
import tarfile

W, H, LEFT, TOP, BOTTOM = 900, 480, 70, 30, 200


def svg(path, body, width=W, height=H):
    with open(path, "w") as f:
        f.write(f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' "
                f"height='{height}' font-family='sans-serif' font-size='11'>\n"
                f"{body}</svg>\n")


def gbps_chart(summary, out):
    rows = [r for r in summary["rows"] if r.get("eager_ms")]
    top = 5000
    plot_h = H - TOP - BOTTOM
    y = lambda v: TOP + plot_h * (1 - v / top)
    group = (W - LEFT - 20) / max(1, len(rows))
    parts = []
    for v in range(0, top + 1, 1000):
        parts.append(f"<line x1='{LEFT}' x2='{W - 20}' y1='{y(v):.1f}' "
                     f"y2='{y(v):.1f}' stroke='#ddd'/><text x='{LEFT - 6}' "
                     f"y='{y(v) + 4:.1f}' text-anchor='end'>{v}</text>")
    series = [("fused_ms", "#2a6fdb", "tfuse"), ("compile_ms", "#e08a00",
              "torch.compile"), ("eager_ms", "#999", "eager")]
    for i, r in enumerate(rows):
        x0 = LEFT + i * group
        for j, (key, color, _) in enumerate(series):
            gb = r["bytes"] / (r[key] * 1e6) if r.get(key) else 0
            bw = group / 4
            parts.append(f"<rect x='{x0 + 4 + j * bw:.1f}' y='{y(gb):.1f}' "
                         f"width='{bw - 1:.1f}' height='{y(0) - y(gb):.1f}' "
                         f"fill='{color}'><title>{r['case']} {key[:-3]}: "
                         f"{gb:.0f} GB/s</title></rect>")
        cx = x0 + group / 2
        parts.append(f"<text transform='translate({cx:.1f},{y(0) + 8:.1f}) "
                     f"rotate(60)'>{r['case']}</text>")
    copy = summary.get("copy_gbps")
    if copy:
        parts.append(f"<line x1='{LEFT}' x2='{W - 20}' y1='{y(copy):.1f}' "
                     f"y2='{y(copy):.1f}' stroke='#c33' stroke-dasharray='4'/>"
                     f"<text x='{W - 22}' y='{y(copy) - 4:.1f}' "
                     f"text-anchor='end' fill='#c33'>copy {copy:.0f} GB/s</text>")
    for j, (_, color, label) in enumerate(series):
        parts.append(f"<rect x='{LEFT + 10 + j * 120}' y='8' width='10' "
                     f"height='10' fill='{color}'/><text x='{LEFT + 24 + j * 120}'"
                     f" y='17'>{label}</text>")
    parts.append(f"<text x='14' y='{TOP + plot_h / 2}' transform='rotate(-90 14 "
                 f"{TOP + plot_h / 2})' text-anchor='middle'>achieved GB/s "
                 f"(minimum bytes / time)</text>")
    svg(os.path.join(out, "benchmarks-gbps.svg"), "\n".join(parts) + "\n")


def roofline_chart(steps, out, bandwidth=4157, peaks=(("fp32", 67),
                                                     ("bf16 tensor", 989.5))):
    lo_x, hi_x, lo_y, hi_y = 1e-2, 1e4, 1e-3, 2e3
    pw, ph = W - LEFT - 20, H - TOP - 60
    x = lambda v: LEFT + pw * (math.log10(v) - math.log10(lo_x)) / (
        math.log10(hi_x) - math.log10(lo_x))
    y = lambda v: TOP + ph * (1 - (math.log10(v) - math.log10(lo_y)) / (
        math.log10(hi_y) - math.log10(lo_y)))
    parts = [f"<rect x='{LEFT}' y='{TOP}' width='{pw}' height='{ph}' "
             f"fill='none' stroke='#888'/>"]
    for e in range(-2, 5):
        parts.append(f"<text x='{x(10 ** e):.1f}' y='{TOP + ph + 14}' "
                     f"text-anchor='middle'>{10 ** e:g}</text>")
    for e in range(-3, 4):
        parts.append(f"<text x='{LEFT - 6}' y='{y(10 ** e) + 4:.1f}' "
                     f"text-anchor='end'>{10 ** e:g}</text>")
    for label, peak in peaks:
        ridge = peak * 1e3 / bandwidth
        start = lo_y * 1e3 / bandwidth
        parts.append(f"<polyline fill='none' stroke='#c33' points='"
                     f"{x(max(lo_x, start)):.1f},{y(max(lo_y, lo_x * bandwidth / 1e3)):.1f} "
                     f"{x(ridge):.1f},{y(peak):.1f} {x(hi_x):.1f},{y(peak):.1f}'/>"
                     f"<text x='{x(hi_x) - 4:.1f}' y='{y(peak) - 4:.1f}' "
                     f"text-anchor='end' fill='#c33'>{label} {peak} TFLOP/s</text>")
    for s in steps:
        if not s.get("measured_us") or not s.get("flops") or not s.get("bytes"):
            continue
        ai = s["flops"] / s["bytes"]
        tf = s["flops"] / (s["measured_us"] * 1e6)
        color = "#e08a00" if s["kind"] == "gemm" else "#2a6fdb"
        parts.append(f"<circle cx='{x(min(max(ai, lo_x), hi_x)):.1f}' "
                     f"cy='{y(min(max(tf, lo_y), hi_y)):.1f}' r='3' "
                     f"fill='{color}' fill-opacity='0.6'><title>{s['name']}: "
                     f"{ai:.2f} FLOP/B, {tf:.3g} TFLOP/s</title></circle>")
    parts.append(f"<text x='{LEFT + pw / 2}' y='{H - 20}' text-anchor='middle'>"
                 f"arithmetic intensity (FLOP/byte); blue: tfuse kernels, "
                 f"orange: cuBLASLt GEMMs (measured, H200)</text>")
    svg(os.path.join(out, "benchmarks-roofline.svg"), "\n".join(parts) + "\n")


def main():
    results, out = sys.argv[1], sys.argv[2]
    summary = json.load(open(os.path.join(results, "summary.json")))
    gbps_chart(summary, out)
    steps = []
    with tarfile.open(os.path.join(results, "bench-runs.tgz")) as tar:
        for member in tar.getmembers():
            if member.name.endswith(".json") and "/bench." in member.name:
                steps += json.load(tar.extractfile(member)).get("steps", [])
    roofline_chart(steps, out, summary.get("copy_gbps") or 4157)


if __name__ == "__main__":
    main()
