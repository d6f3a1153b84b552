#!/usr/bin/env python3
"""PyTorch peers of `tfuse-compile --train --loss=mse` on the example layers
(examples/README.md gives their semantics): one training step without an
optimizer — forward, mean-squared loss against a target, backward to every
weight and to the input — in bf16 parameters (what the tfuse step computes),
eager and torch.compile, attention materialised ("math") and through
scaled_dot_product_attention ("sdpa", what users run). Event-timed median
of 20 steps after warm-up, and the peak memory of one step.
Writes JSON to argv[1]; runs on the GPU machine (PyTorch there).
"""

import json
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from peers import median_ms  # noqa: E402 (the same timing as bench/peers.py)

# name: (batch, seq, hidden, heads, ffn)
LAYERS = {
    "bert-large": (32, 512, 1024, 16, 4096),
    "gpt2": (8, 1024, 768, 12, 3072),
    "llama-7b": (4, 2048, 4096, 32, 11008),
}


def attention(q, k, v, heads, causal, mask, dropout, sdpa):
    b, s, h = q.shape
    d = h // heads
    q, k, v = (t.view(b, s, heads, d).transpose(1, 2) for t in (q, k, v))
    if sdpa:
        o = F.scaled_dot_product_attention(
            q, k, v, attn_mask=mask, dropout_p=dropout,
            is_causal=causal and mask is None)
    else:
        scores = q @ k.transpose(-1, -2) * (1.0 / math.sqrt(d))
        if mask is not None:
            scores = scores + mask
        if causal:
            keep = torch.ones(s, s, dtype=torch.bool, device=q.device).tril()
            scores = scores.masked_fill(~keep, float("-inf"))
        p = torch.softmax(scores, dim=-1)
        o = F.dropout(p, dropout, True) @ v
    return o.transpose(1, 2).reshape(b, s, h)


def bert_layer(x, mask, p, heads, sdpa):
    q, k, v = (x @ p[w] + p[b] for w, b in (("wq", "bq"), ("wk", "bk"),
                                              ("wv", "bv")))
    a = attention(q, k, v, heads, False, mask, 0.1, sdpa)
    a = F.dropout(a @ p["wo"] + p["bo"], 0.1, True)
    x1 = F.layer_norm(x + a, (x.shape[-1],), p["ln1_gamma"], p["ln1_beta"],
                      1e-12)
    f = F.gelu(x1 @ p["w_ffn_up"] + p["b_ffn_up"])
    f = F.dropout(f @ p["w_ffn_down"] + p["b_ffn_down"], 0.1, True)
    return F.layer_norm(x1 + f, (x.shape[-1],), p["ln2_gamma"],
                        p["ln2_beta"], 1e-12)


def gpt2_block(x, mask, p, heads, sdpa):
    h = x.shape[-1]
    n = F.layer_norm(x, (h,), p["ln1_gamma"], p["ln1_beta"], 1e-5)
    q, k, v = (n @ p["w_qkv"] + p["b_qkv"]).split(h, dim=-1)
    a = attention(q, k, v, heads, True, None, 0.1, sdpa)
    x1 = x + F.dropout(a @ p["w_attn_out"] + p["b_attn_out"], 0.1, True)
    n = F.layer_norm(x1, (h,), p["ln2_gamma"], p["ln2_beta"], 1e-5)
    f = F.gelu(n @ p["w_ffn_up"] + p["b_ffn_up"], approximate="tanh")
    return x1 + F.dropout(f @ p["w_ffn_down"] + p["b_ffn_down"], 0.1, True)


def rms_norm(x, gamma):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(
        x.dtype) * gamma


def llama_block(x, mask, p, heads, sdpa):
    n = rms_norm(x, p["attn_norm_gamma"])
    a = attention(n @ p["wq"], n @ p["wk"], n @ p["wv"], heads, True, None,
                  0.0, sdpa)
    x1 = x + a @ p["wo"]
    n = rms_norm(x1, p["ffn_norm_gamma"])
    return x1 + (F.silu(n @ p["w_gate"]) * (n @ p["w_up"])) @ p["w_down"]


def make(name):
    b, s, h, heads, f = LAYERS[name]
    g = torch.Generator(device="cuda").manual_seed(0)

    def param(*shape, scale=None):
        t = torch.randn(*shape, device="cuda", generator=g)
        t = t * (scale if scale is not None else 1 / math.sqrt(shape[0]))
        return t.to(torch.bfloat16).requires_grad_()

    ones = lambda n: torch.ones(n, device="cuda", dtype=torch.bfloat16
                                ).requires_grad_()
    zeros = lambda n: torch.zeros(n, device="cuda", dtype=torch.bfloat16
                                  ).requires_grad_()
    mask = None
    if name == "bert-large":
        p = {"wq": param(h, h), "bq": zeros(h), "wk": param(h, h),
             "bk": zeros(h), "wv": param(h, h), "bv": zeros(h),
             "wo": param(h, h), "bo": zeros(h), "ln1_gamma": ones(h),
             "ln1_beta": zeros(h), "w_ffn_up": param(h, f),
             "b_ffn_up": zeros(f), "w_ffn_down": param(f, h),
             "b_ffn_down": zeros(h), "ln2_gamma": ones(h),
             "ln2_beta": zeros(h)}
        mask = torch.zeros(b, 1, 1, s, device="cuda", dtype=torch.bfloat16)
        layer = bert_layer
    elif name == "gpt2":
        p = {"ln1_gamma": ones(h), "ln1_beta": zeros(h),
             "w_qkv": param(h, 3 * h), "b_qkv": zeros(3 * h),
             "w_attn_out": param(h, h), "b_attn_out": zeros(h),
             "ln2_gamma": ones(h), "ln2_beta": zeros(h),
             "w_ffn_up": param(h, f), "b_ffn_up": zeros(f),
             "w_ffn_down": param(f, h), "b_ffn_down": zeros(h)}
        layer = gpt2_block
    else:
        p = {"attn_norm_gamma": ones(h), "wq": param(h, h),
             "wk": param(h, h), "wv": param(h, h), "wo": param(h, h),
             "ffn_norm_gamma": ones(h), "w_gate": param(h, f),
             "w_up": param(h, f), "w_down": param(f, h)}
        layer = llama_block
    x = param(b, s, h, scale=1.0)
    target = torch.randn(b, s, h, device="cuda", generator=g).to(
        torch.bfloat16)
    return layer, x, mask, p, heads, target


def adamw_peer():
    """torch.optim.AdamW(fused=True) and (foreach=True) over the LLaMA-7B
    block's nine weights in f32 (what opt.llama-7b.f32.adamw updates)."""
    h, f = 4096, 11008
    shapes = [(h,), (h, h), (h, h), (h, h), (h, h), (h,), (h, f), (h, f),
              (f, h)]
    params = [torch.zeros(s, device="cuda", requires_grad=True)
              for s in shapes]
    for p in params:
        p.grad = torch.randn_like(p)
    row = {"parameters": sum(p.numel() for p in params)}
    for kind in ("fused", "foreach"):
        opt = torch.optim.AdamW(params, lr=1e-3, weight_decay=0.01,
                                **{kind: True})
        row[kind + "_ms"] = median_ms(opt.step)
        del opt
    del params
    torch.cuda.empty_cache()
    return row


def kernel_profile(run, top=40):
    """The GPU kernels of one call of `run` (after warm-up), summed by
    name, longest first: where the peer's step spends its time, to set
    against tfuse-run --json's per-step times."""
    from torch.profiler import ProfilerActivity, profile
    run()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        run()
        torch.cuda.synchronize()
    rows = [(e.key, e.device_time_total, e.count)
            for e in prof.key_averages() if e.device_time_total > 0]
    rows.sort(key=lambda r: -r[1])
    return {"total_us": sum(r[1] for r in rows),
            "kernels": [{"name": k[:160], "us": t, "count": c}
                        for k, t, c in rows[:top]]}


# PEER_VARIANTS (comma-separated) picks a subset, e.g. the SDPA ones only.
# PEER_PROFILE=1 adds each variant's kernel profile (kernel_profile).
VARIANTS = os.environ.get(
    "PEER_VARIANTS", "eager-math,eager-sdpa,compile-math,compile-sdpa").split(",")


def main():
    names = sys.argv[2:] or list(LAYERS)
    out = {"torch": torch.__version__, "device": torch.cuda.get_device_name(),
           "layers": {}}
    for name in names:
        layer, x, mask, p, heads, target = make(name)
        leaves = [x] + list(p.values())
        row = {}
        for variant in VARIANTS:
            sdpa = variant.endswith("sdpa")

            def step(x, mask, p, target):
                y = layer(x, mask, p, heads, sdpa)
                loss = (y.float() - target.float()).pow(2).mean()
                loss.backward()
                return loss

            fn = torch.compile(step) if variant.startswith("compile") else step

            def run():
                for t in leaves:
                    t.grad = None
                fn(x, mask, p, target)

            try:
                run()
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
                run()
                torch.cuda.synchronize()
                peak = torch.cuda.max_memory_allocated()
                row[variant] = {"ms": median_ms(run), "peak_bytes": peak}
                if os.environ.get("PEER_PROFILE") == "1":
                    row[variant]["profile"] = kernel_profile(run)
            except Exception as error:  # noqa: BLE001 (report, go on)
                row[variant] = {"error": str(error)[:300]}
            print(name, variant, {k: v for k, v in row[variant].items()
                                  if k != "profile"}, flush=True)
        out["layers"][name] = row
        del layer, x, mask, p, target, leaves
        torch.cuda.empty_cache()
    out["adamw"] = adamw_peer()
    print("adamw", out["adamw"], flush=True)
    with open(sys.argv[1], "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
