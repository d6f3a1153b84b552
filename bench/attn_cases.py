#!/usr/bin/env python3
"""Writes the fused-attention cases (one tfuse.attention each) into DIR.

Names: attn-<dtype>-b<B>h<H>kv<Hkv>-q<Sq>k<Sk>-d<D>v<Dv>[-causal][-mask<M>],
M "pad" for a [B, 1, 1, Sk] padding mask, "rows" for [1, 1, Sq, Sk]. The small
ones test the tails (Sq, Sk not multiples of the 64-row tiles), grouped-query
attention and value head dims different from the query's under --check; the
large ones are the LLaMA-7B / GPT-2 shapes timed against PyTorch SDPA.
"""
import os
import sys

CASES = [
    # dtype, B, H, Hkv, Sq, Sk, D, Dv, causal[, mask]
    ("bf16", 2, 4, 2, 97, 130, 64, 64, False),
    ("f16", 1, 2, 2, 256, 256, 128, 128, True),
    ("bf16", 2, 8, 8, 1, 4095, 128, 64, False),
    ("bf16", 1, 8, 1, 1000, 1000, 64, 64, True),
    ("f16", 1, 3, 3, 65, 1, 16, 32, False),
    ("bf16", 1, 4, 4, 4095, 4095, 128, 128, True),
    ("bf16", 2, 4, 4, 70, 90, 64, 64, False, "pad"),
    ("f16", 1, 2, 1, 130, 129, 128, 64, True, "rows"),
    # Timed (and checked): LLaMA-7B b4 s2048 h32 d128, GPT-2-like d64.
    ("bf16", 4, 32, 32, 2048, 2048, 128, 128, True),
    ("bf16", 4, 32, 32, 2048, 2048, 128, 128, False),
    ("bf16", 4, 16, 16, 2048, 2048, 64, 64, False),
]


def name(c):
    dtype, b, h, kv, sq, sk, d, dv, causal = c[:9]
    mask = c[9] if len(c) > 9 else None
    return (f"attn-{dtype}-b{b}h{h}kv{kv}-q{sq}k{sk}-d{d}v{dv}"
            + ("-causal" if causal else "") + (f"-mask{mask}" if mask else ""))


def mlir(c):
    dtype, b, h, kv, sq, sk, d, dv, causal = c[:9]
    mask = c[9] if len(c) > 9 else None
    q = f"tensor<{b}x{h}x{sq}x{d}x{dtype}>"
    k = f"tensor<{b}x{kv}x{sk}x{d}x{dtype}>"
    v = f"tensor<{b}x{kv}x{sk}x{dv}x{dtype}>"
    o = f"tensor<{b}x{h}x{sq}x{dv}x{dtype}>"
    args, types, use = f"%q: {q}, %k: {k}, %v: {v}", f"{q}, {k}, {v}", ""
    if mask:
        m = (f"tensor<{b}x1x1x{sk}x{dtype}>" if mask == "pad"
             else f"tensor<1x1x{sq}x{sk}x{dtype}>")
        args, types, use = args + f", %m: {m}", types + f", {m}", " mask %m"
    scale = 1.0 / d ** 0.5
    flag = " causal" if causal else ""
    return (f"func.func @attention({args}) -> {o} {{\n"
            f"  %o = tfuse.attention %q, %k, %v{use} scale = {scale!r}{flag}"
            f" : ({types}) -> {o}\n"
            f"  return %o : {o}\n}}\n")


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for c in CASES:
        with open(os.path.join(out, name(c) + ".mlir"), "w") as f:
            f.write(mlir(c))
