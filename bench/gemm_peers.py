#!/usr/bin/env python3
"""Each GEMM of tfuse bundles against torch.matmul of the same shape, in the
same run (issue 11, item 6: GEMMs at least as fast as PyTorch's).

usage: gemm_peers.py OUT.json RESULTS.json...

Each RESULTS.json is `tfuse-run --bench --json` output; its bundle's
plan.json gives every GEMM step's operands (row-major lhs [M,K] or [K,M]
with transpose_lhs, rhs [K,N] or [N,K], a batch with strides, 0 meaning
broadcast) and epilogue. The peer computes the same product with the same
storage layout: torch.matmul on (transposed) views, the bias through
torch.addmm (cuBLASLt's bias epilogue, as tfuse uses) where there is no
batch, GELU / ReLU applied after (eager PyTorch has no fused epilogue).
Both sides are timed with the L2 flushed before each rep (as tfuse-run
--bench does); the median is kept. Shapes repeated across bundles are timed
once. Runs on the GPU machine; prints a table, writes JSON to OUT.json.
"""

import json
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from peers import median_ms  # noqa: E402 (the same timing as bench/peers.py)

DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}


def timed_us(fn, flush):
    return median_ms(fn, flush=flush) * 1e3


def peer(step):
    """A closure computing the step's GEMM with torch, on fresh operands."""
    dt = DTYPES[step["dtype"]]
    b, m, n, k = step["batch"], step["m"], step["n"], step["k"]
    tl, tr = step["transpose_lhs"], step["transpose_rhs"]

    def operand(rows, cols, stride, transposed):
        shape = (cols, rows) if transposed else (rows, cols)
        count = b if (b > 1 and stride != 0) else 1
        t = torch.randn(count, *shape, device="cuda", dtype=dt)
        t = t.transpose(-1, -2) if transposed else t
        return t.expand(b, rows, cols) if (b > 1 and count == 1) else t

    lhs = operand(m, k, step["lhs_batch_stride"], tl)
    rhs = operand(k, n, step["rhs_batch_stride"], tr)
    epilogue = step.get("epilogue", "none")
    bias = (torch.randn(n, device="cuda", dtype=dt)
            if epilogue.startswith("bias") else None)
    act = {"gelu": F.gelu, "bias_gelu": F.gelu, "relu": F.relu,
           "bias_relu": F.relu}.get(epilogue)
    if b == 1:
        lhs, rhs = lhs[0], rhs[0]

    def run():
        if bias is not None and b == 1:
            y = torch.addmm(bias, lhs, rhs)
        else:
            y = torch.matmul(lhs, rhs)
            if bias is not None:
                y = y + bias
        return act(y) if act else y

    return run


def main():
    out_path, results = sys.argv[1], sys.argv[2:]
    flush = torch.empty(2 * 2**28, dtype=torch.uint8, device="cuda")
    rows, peers = [], {}
    for path in results:
        doc = json.load(open(path))
        plan = json.load(open(os.path.join(doc["bundle"], "plan.json")))
        for timed in doc["steps"]:
            step = plan["steps"][timed["index"]]
            if step.get("kind") != "gemm" or "measured_us" not in timed:
                continue
            key = tuple(step[f] for f in (
                "dtype", "batch", "m", "n", "k", "transpose_lhs",
                "transpose_rhs", "epilogue")) + (
                step["lhs_batch_stride"] == 0, step["rhs_batch_stride"] == 0)
            if key not in peers:
                peers[key] = timed_us(peer(step), flush)
            algorithm = timed.get("gemm_algorithm", {})
            rows.append({
                "bundle": os.path.basename(doc["bundle"].rstrip("/")),
                "step": step["name"], "dtype": step["dtype"],
                "batch": step["batch"], "m": step["m"], "n": step["n"],
                "k": step["k"], "transpose_lhs": step["transpose_lhs"],
                "transpose_rhs": step["transpose_rhs"],
                "epilogue": step["epilogue"], "flops": step["flops"],
                "predicted_us": step["predicted_us"],
                "tfuse_us": timed["measured_us"],
                "tfuse_heuristic_trial_us": algorithm.get("heuristic_us"),
                "tfuse_chosen_trial_us": algorithm.get("chosen_us"),
                "torch_us": peers[key]})
    json.dump({"torch": torch.__version__,
               "device": torch.cuda.get_device_name(), "gemms": rows},
              open(out_path, "w"), indent=1)
    print("%-34s %-30s %9s %9s %9s %6s %7s" % (
        "bundle:step", "b m n k (tl tr) epilogue", "tfuse us", "torch us",
        "pred us", "t/tor", "TFLOP/s"))
    for r in rows:
        print("%-34s %-30s %9.1f %9.1f %9.1f %6.2f %7.1f" % (
            (r["bundle"] + ":" + r["step"])[:34],
            "%d %d %d %d (%d%d) %s" % (r["batch"], r["m"], r["n"], r["k"],
                                       r["transpose_lhs"], r["transpose_rhs"],
                                       r["epilogue"]),
            r["tfuse_us"], r["torch_us"], r["predicted_us"],
            r["tfuse_us"] / r["torch_us"], r["flops"] / r["tfuse_us"] / 1e6))
    total_t = sum(r["tfuse_us"] for r in rows)
    total_p = sum(r["torch_us"] for r in rows)
    print("all GEMMs: tfuse %.1f us, torch.matmul %.1f us (%.3f)" % (
        total_t, total_p, total_t / total_p if total_p else 0))


if __name__ == "__main__":
    main()
