#!/usr/bin/env python3
"""Turns the runs of bench/device-bench.sh into one table and one JSON.

argv[1]: the runs folder (bench.<case>.<dtype>.<fused|unfused>.json from
tfuse-run --json, peers.json from bench/peers.py, gpu.txt); argv[2]: the
summary JSON to write. Prints the table.
"""

import glob
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def main():
    runs, out = sys.argv[1], sys.argv[2]
    peers = load(os.path.join(runs, "peers.json")) or {"cases": {}}
    copy = peers.get("copy_gbps")
    rows = []
    for path in sorted(glob.glob(os.path.join(runs, "bench.*.fused.json"))):
        case = os.path.basename(path)[len("bench."):-len(".fused.json")]
        fused = load(path)
        unfused = load(path.replace(".fused.json", ".unfused.json"))
        if not fused:
            continue
        t = fused["totals"]
        bytes_ = t["bytes"]
        row = {
            "case": case,
            "bytes": bytes_,
            "fused_ms": t.get("plan_median_us", 0) / 1e3,
            "unfused_ms": unfused["totals"].get("plan_median_us", 0) / 1e3
            if unfused else None,
            "predicted_ms": t["predicted_us"] / 1e3,
            "floor_ms": bytes_ / 4.3e9 * 1e3 / 1e3,
        }
        peer = peers["cases"].get(case, {})
        row["eager_ms"] = peer.get("eager_ms")
        row["compile_ms"] = peer.get("compile_ms")
        row["gbps"] = bytes_ / (row["fused_ms"] * 1e6) if row["fused_ms"] else 0
        row["pct_copy"] = 100 * row["gbps"] / copy if copy else None
        row["vs_compile"] = (row["compile_ms"] / row["fused_ms"]
                             if row["compile_ms"] and row["fused_ms"] else None)
        rows.append(row)
    with open(out, "w") as f:
        json.dump({"gpu": open(os.path.join(runs, "gpu.txt")).read().strip()
                   if os.path.exists(os.path.join(runs, "gpu.txt")) else "",
                   "torch": peers.get("torch"), "copy_gbps": copy,
                   "rows": rows}, f, indent=2)
    fmt = lambda v, w=8, p=3: (f"{v:{w}.{p}f}" if isinstance(v, (int, float))
                               else f"{'-':>{w}}")
    print(f"copy bandwidth: {copy:.0f} GB/s" if copy else "copy bandwidth: -")
    print(f"{'case':42} {'GB':>6} {'fused':>8} {'unfused':>8} {'eager':>8} "
          f"{'compile':>8} {'floor':>8} {'pred':>8} {'GB/s':>6} {'%copy':>6} "
          f"{'vs tc':>6}")
    for r in rows:
        print(f"{r['case']:42} {r['bytes'] / 1e9:6.2f} {fmt(r['fused_ms'])} "
              f"{fmt(r['unfused_ms'])} {fmt(r['eager_ms'])} "
              f"{fmt(r['compile_ms'])} {fmt(r['floor_ms'])} "
              f"{fmt(r['predicted_ms'])} {r['gbps']:6.0f} "
              f"{fmt(r['pct_copy'], 6, 1)} {fmt(r['vs_compile'], 6, 2)}")


if __name__ == "__main__":
    main()
