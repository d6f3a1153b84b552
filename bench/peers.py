#!/usr/bin/env python3
"""PyTorch eager and torch.compile on the cases of bench/cases.py, and the
GPU's copy bandwidth, measured the same way: warm-up, then the median of
CUDA-event timings of many repetitions. Writes JSON to argv[1].

Runs on the GPU machine (PyTorch there); not part of the test suite.
"""

import json
import statistics
import sys

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from cases import CASES  # noqa: E402

DTYPES = {"bf16": torch.bfloat16, "f32": torch.float32}


def median_ms(fn, reps=20, warmup=3, flush=None):
    """The median of `reps` event-timed calls; `flush` (a CUDA tensor) is
    overwritten before each, to time from a cold L2 as tfuse-run does."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for rep in range(reps):
        if flush is not None:
            flush.fill_(rep)
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def make(name, dtype):
    shape, _ = CASES[name]
    dt = DTYPES[dtype]
    g = torch.Generator(device="cuda").manual_seed(0)
    rand = lambda *s: torch.rand(*s, device="cuda", dtype=dt, generator=g) * 2 - 1
    cols = shape[-1]
    if name == "bias_gelu":
        args = (rand(*shape), rand(cols))
        fn = lambda x, b: torch.nn.functional.gelu(x + b, approximate="tanh")
    elif name == "swiglu":
        args = (rand(*shape), rand(*shape))
        fn = lambda a, b: torch.nn.functional.silu(a) * b
    elif name == "bias_residual_layernorm":
        args = (rand(*shape), rand(cols), rand(*shape), rand(cols), rand(cols))
        fn = lambda x, b, r, g_, be: torch.nn.functional.layer_norm(
            x + b + r, (cols,), g_, be, 1e-5)
    elif name == "bias_dropout_residual_layernorm":
        args = (rand(*shape), rand(cols), rand(*shape), rand(cols), rand(cols))
        fn = lambda x, b, r, g_, be: torch.nn.functional.layer_norm(
            torch.nn.functional.dropout(x + b, 0.1, True) + r, (cols,), g_, be,
            1e-5)
    elif name == "rmsnorm":
        args = (rand(*shape), rand(cols))

        def fn(x, g_):
            xf = x.float()
            return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)
                    ).to(x.dtype) * g_
    else:
        args = (rand(*shape), rand(shape[0], 1, 1, shape[-1]))
        drop = name.endswith("dropout")

        def fn(x, m):
            p = torch.softmax(x * 0.125 + m, dim=-1)
            return torch.nn.functional.dropout(p, 0.1, True) if drop else p
    return fn, args


def main():
    out = {"torch": torch.__version__, "device": torch.cuda.get_device_name(),
           "cases": {}}
    # Copy bandwidth: read + write of a 1 GiB buffer.
    src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    ms = median_ms(lambda: dst.copy_(src))
    out["copy_gbps"] = 2 * src.numel() / (ms * 1e6)
    print(f"copy bandwidth {out['copy_gbps']:.0f} GB/s", flush=True)
    del src, dst
    for name in CASES:
        for dtype in DTYPES:
            fn, args = make(name, dtype)
            eager = median_ms(lambda: fn(*args))
            compiled = torch.compile(fn)
            try:
                inductor = median_ms(lambda: compiled(*args))
            except Exception as error:  # report, do not stop the run
                print(f"torch.compile failed on {name} {dtype}: {error}")
                inductor = None
            out["cases"][f"{name}.{dtype}"] = {"eager_ms": eager,
                                               "compile_ms": inductor}
            print(f"{name}.{dtype}: eager {eager:.3f} ms, compile "
                  f"{inductor if inductor is None else round(inductor, 3)} ms",
                  flush=True)
            del args
            torch.cuda.empty_cache()
    with open(sys.argv[1], "w") as f:
        json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
