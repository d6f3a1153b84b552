#!/usr/bin/env python3
"""What a GEMM dimension that is not a multiple of 16 bytes costs: the
vocabulary GEMMs of an LM head (BERT's 30522, GPT-2's 50257) against the
same GEMMs padded to a multiple of 8 elements, in the three layouts a
training step runs them (forward Y = X W, input gradient dX = dY W^T,
weight gradient dW = X^T dY), bf16 and f16 with f32 accumulation
(torch.matmul: cuBLAS(Lt), as tfuse-run). Median of event-timed reps with
the L2 flushed (bench/peers.py), TFLOP/s from 2 M N K.

usage: gemm_alignment.py OUT.json [tokens hidden]
Runs on the GPU machine (PyTorch there); prints a table, writes JSON.
"""

import json
import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from peers import median_ms  # noqa: E402

PAIRS = [(30522, 30528), (50257, 50264), (32001, 32008)]


def main():
    out = sys.argv[1]
    m = int(sys.argv[2]) if len(sys.argv) > 2 else 16384
    k = int(sys.argv[3]) if len(sys.argv) > 3 else 1024
    flush = torch.empty(256 * 2**20 // 4, dtype=torch.float32, device="cuda")
    rows = []
    for dtype in (torch.bfloat16, torch.float16):
        for odd, even in PAIRS:
            for n in (odd, even):
                x = torch.randn(m, k, device="cuda", dtype=dtype)
                w = torch.randn(k, n, device="cuda", dtype=dtype)
                dy = torch.randn(m, n, device="cuda", dtype=dtype)
                cases = {"forward": lambda: x @ w,
                         "input_grad": lambda: dy @ w.t(),
                         "weight_grad": lambda: x.t() @ dy}
                for layout, fn in cases.items():
                    ms = median_ms(fn, flush=flush)
                    rows.append({"dtype": str(dtype)[6:], "m": m, "n": n,
                                 "k": k, "layout": layout, "us": ms * 1e3,
                                 "tflops": 2 * m * n * k / (ms * 1e9)})
                del x, w, dy
    torch.cuda.empty_cache()
    with open(out, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(),
                   "torch": torch.__version__, "rows": rows}, f, indent=1)
    print("%-9s %-12s %7s %9s %8s %9s %8s %6s" % (
        "dtype", "layout", "n odd", "us", "TFLOP/s", "n even", "TFLOP/s",
        "ratio"))
    for r in rows:
        if r["n"] % 8 == 0:
            continue
        e = next(s for s in rows if s["dtype"] == r["dtype"] and
                 s["layout"] == r["layout"] and s["n"] % 8 == 0 and
                 s["n"] - r["n"] < 8 and s["n"] > r["n"])
        print("%-9s %-12s %7d %9.1f %8.1f %9d %8.1f %6.2f" % (
            r["dtype"], r["layout"], r["n"], r["us"], r["tflops"], e["n"],
            e["tflops"], r["tflops"] / e["tflops"]))


if __name__ == "__main__":
    main()
