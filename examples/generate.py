#!/usr/bin/env python3
"""Generates the example Transformer layers of tfuse as tfuse-dialect MLIR.

Run it from anywhere as

    python3 examples/generate.py

and it (re)writes, next to itself, four files per model:

    <model>.bf16.mlir        full size, bf16
    <model>.f32.mlir         full size, f32
    <model>.bf16.small.mlir  batch 2, sequence 64, same widths, bf16
    <model>.f32.small.mlir   batch 2, sequence 64, same widths, f32

The models are a BERT-Large encoder layer (post-LN), a LLaMA-7B-like decoder
block (pre-RMSNorm, SwiGLU) and a GPT-2-small block (pre-LN, fused QKV).
Each file holds one func.func named after the layer whose arguments are the
input activations and every weight and bias; a comment block at the top of the
file lists them in order. Linear weights are stored [in, out] (PyTorch's
nn.Linear weight transposed; GPT-2's Conv1D layout), so a linear layer is
`tfuse.matmul %x, %w` followed by `tfuse.add` of the bias.

The file uses the Python standard library only.
"""

import math
import os
import textwrap

#: Batch and sequence length of the *.small.mlir variants (the ones the CPU
#: reference evaluates in tests).
SMALL_BATCH, SMALL_SEQ = 2, 64

#: Element types each model is written in.
DTYPES = ("bf16", "f32")


# ---------------------------------------------------------------------------
# IR builder
# ---------------------------------------------------------------------------


def tensor_type(shape, dtype):
    """`tensor<2x64x1024xbf16>` for shape (2, 64, 1024) and dtype bf16."""
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def mlir_float(value):
    """A float literal MLIR parses: always with a '.', e.g. 1.0e-12, 0.125."""
    text = repr(float(value))
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + ("e" + exponent if exponent else "")


def broadcast(lhs, rhs):
    """The numpy broadcast of two shapes (as tfuse's binary ops do it)."""
    rank = max(len(lhs), len(rhs))
    lhs = (1,) * (rank - len(lhs)) + tuple(lhs)
    rhs = (1,) * (rank - len(rhs)) + tuple(rhs)
    shape = []
    for a, b in zip(lhs, rhs):
        if a != b and 1 not in (a, b):
            raise ValueError(f"shapes {lhs} and {rhs} do not broadcast")
        shape.append(b if a == 1 else a)
    return tuple(shape)


class Value:
    """An SSA value: its name (without %) and its tensor type."""

    def __init__(self, name, shape, dtype):
        self.name, self.shape, self.dtype = name, tuple(shape), dtype

    @property
    def type(self):
        return tensor_type(self.shape, self.dtype)

    def __str__(self):
        return "%" + self.name


class FuncBuilder:
    """Builds one func.func of tfuse ops with readable SSA names.

    Each op method takes the name of its result first, computes the result
    shape, emits one line in tfuse-opt's syntax and returns the new Value.
    Names must be unique. Dropout sites (tfuse.dropout and the dropout of
    tfuse.attention) are recorded with their seed so that the header can
    document them; two sites may not share a seed.
    """

    def __init__(self, dtype):
        self.dtype = dtype
        self.arguments = []  # (Value, meaning)
        self.dropout_sites = []  # (seed, p, where)
        self.lines = []
        self.names = set()

    # -- bookkeeping --------------------------------------------------------

    def _claim(self, name):
        if name in self.names:
            raise ValueError(f"SSA name %{name} is used twice")
        self.names.add(name)
        return name

    def _record_dropout(self, p, seed, where):
        if any(seed == s for s, _, _ in self.dropout_sites):
            raise ValueError(f"dropout seed {seed} is used twice")
        self.dropout_sites.append((seed, p, where))

    def _emit(self, name, shape, op_text):
        value = Value(self._claim(name), shape, self.dtype)
        self.lines.append(f"  {value} = {op_text}")
        return value

    def comment(self, text):
        """A `// text` line in the body, before the next op."""
        self.lines.append(f"  // {text}")

    def argument(self, name, shape, meaning):
        value = Value(self._claim(name), shape, self.dtype)
        self.arguments.append((value, meaning))
        return value

    # -- ops ----------------------------------------------------------------

    def matmul(self, name, lhs, rhs):
        """lhs [..., M, K] times a weight rhs [K, N]."""
        if len(rhs.shape) != 2 or lhs.shape[-1] != rhs.shape[0]:
            raise ValueError(f"cannot multiply {lhs.shape} by {rhs.shape}")
        shape = lhs.shape[:-1] + rhs.shape[-1:]
        return self._emit(
            name, shape,
            f"tfuse.matmul {lhs}, {rhs} : ({lhs.type}, {rhs.type}) -> "
            f"{tensor_type(shape, self.dtype)}")

    def binary(self, op, name, lhs, rhs):
        shape = broadcast(lhs.shape, rhs.shape)
        return self._emit(
            name, shape,
            f"tfuse.{op} {lhs}, {rhs} : ({lhs.type}, {rhs.type}) -> "
            f"{tensor_type(shape, self.dtype)}")

    def add(self, name, lhs, rhs):
        return self.binary("add", name, lhs, rhs)

    def mul(self, name, lhs, rhs):
        return self.binary("mul", name, lhs, rhs)

    def silu(self, name, x):
        return self._emit(name, x.shape, f"tfuse.silu {x} : {x.type}")

    def gelu(self, name, x, approximate="none"):
        # `approximate = none` is the default, which tfuse-opt leaves out.
        attr = "" if approximate == "none" else f" approximate = {approximate}"
        return self._emit(name, x.shape, f"tfuse.gelu {x}{attr} : {x.type}")

    def layer_norm(self, name, x, gamma, beta, eps):
        return self._emit(
            name, x.shape,
            f"tfuse.layer_norm {x} gamma {gamma} beta {beta} "
            f"eps = {mlir_float(eps)} : ({x.type}, {gamma.type}, {beta.type})"
            f" -> {x.type}")

    def rms_norm(self, name, x, gamma, eps):
        return self._emit(
            name, x.shape,
            f"tfuse.rms_norm {x} gamma {gamma} eps = {mlir_float(eps)} : "
            f"({x.type}, {gamma.type}) -> {x.type}")

    def dropout(self, name, x, p, seed, where):
        self._record_dropout(p, seed, where)
        return self._emit(
            name, x.shape,
            f"tfuse.dropout {x} p = {mlir_float(p)} seed = {seed} : {x.type}")

    def reshape(self, name, x, shape):
        if math.prod(shape) != math.prod(x.shape):
            raise ValueError(f"cannot reshape {x.shape} into {shape}")
        return self._emit(
            name, shape,
            f"tfuse.reshape {x} : {x.type} -> "
            f"{tensor_type(shape, self.dtype)}")

    def transpose(self, name, x, perm):
        shape = tuple(x.shape[d] for d in perm)
        perm_text = ", ".join(str(d) for d in perm)
        return self._emit(
            name, shape,
            f"tfuse.transpose {x} perm = [{perm_text}] : {x.type} -> "
            f"{tensor_type(shape, self.dtype)}")

    def split(self, names, x, axis, sizes):
        """Splits x along `axis` into pieces of `sizes`; one name each."""
        if sum(sizes) != x.shape[axis] or len(names) != len(sizes):
            raise ValueError(f"cannot split {x.shape} into {sizes}")
        pieces = []
        for name, size in zip(names, sizes):
            shape = x.shape[:axis] + (size,) + x.shape[axis + 1:]
            pieces.append(Value(self._claim(name), shape, self.dtype))
        results = ", ".join(str(p) for p in pieces)
        types = ", ".join(p.type for p in pieces)
        self.lines.append(f"  {results} = tfuse.split {x} axis = {axis} : "
                          f"{x.type} -> {types}")
        return pieces

    def attention(self, name, q, k, v, scale, mask=None, causal=False,
                  dropout=None):
        """Scaled dot-product attention of q, k, v [B, H, S, D].

        `dropout` is None or (p, seed, where) for the attention probabilities.
        """
        shape = q.shape[:3] + v.shape[3:]
        operands = [q, k, v] + ([mask] if mask else [])
        text = f"tfuse.attention {q}, {k}, {v}"
        if mask:
            text += f" mask {mask}"
        text += f" scale = {mlir_float(scale)}"
        if causal:
            text += " causal"
        if dropout:
            p, seed, where = dropout
            self._record_dropout(p, seed, where)
            text += f" dropout_p = {mlir_float(p)} seed = {seed}"
        operand_types = ", ".join(o.type for o in operands)
        text += f" : ({operand_types}) -> {tensor_type(shape, self.dtype)}"
        return self._emit(name, shape, text)

    # -- output -------------------------------------------------------------

    def render(self, func_name, result, header):
        """The file's text: header comments, argument table and the func.

        `header` is a list of paragraphs, wrapped to fit 80 columns; a
        paragraph that starts with a space (a formula) is kept as it is, and
        an empty one leaves an empty comment line.
        """
        out = []
        for paragraph in header:
            if not paragraph or paragraph.startswith(" "):
                lines = [paragraph]
            else:
                lines = textwrap.wrap(paragraph, width=77)
            out.extend(f"// {line}".rstrip() for line in lines)
        if self.dropout_sites:
            out.append("//")
            out.append("// Dropout sites (each with its own fixed seed):")
            for seed, p, where in self.dropout_sites:
                out.append(f"//   seed {seed}: p = {p}, {where}")
        out.append("//")
        out.append("// Arguments, in order:")
        width = max(len(str(v)) for v, _ in self.arguments)
        shape_width = max(len(str(list(v.shape))) for v, _ in self.arguments)
        for value, meaning in self.arguments:
            shape = str(list(value.shape))
            out.append(f"//   {str(value):<{width}}  {shape:<{shape_width}}  "
                       f"{meaning}")
        out.append("")
        arguments = ",\n".join(f"    {v}: {v.type}" for v, _ in self.arguments)
        out.append(f"func.func @{func_name}(")
        out.append(f"{arguments}) -> {result.type} {{")
        out.extend(self.lines)
        out.append(f"  return {result} : {result.type}")
        out.append("}")
        return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# Building blocks shared by the models
# ---------------------------------------------------------------------------


def linear(b, name, x, weight, bias=None):
    """x @ weight (+ bias): %<name>, through %<name>_matmul with a bias."""
    if bias is None:
        return b.matmul(name, x, weight)
    return b.add(name, b.matmul(f"{name}_matmul", x, weight), bias)


def split_heads(b, name, x, heads):
    """[B, S, heads * D] -> [B, heads, S, D] as %<name>_heads."""
    batch, seq, width = x.shape
    split = b.reshape(f"{name}_split", x, (batch, seq, heads, width // heads))
    return b.transpose(f"{name}_heads", split, (0, 2, 1, 3))


def merge_heads(b, name, x):
    """[B, heads, S, D] -> [B, S, heads * D] as %<name>."""
    batch, heads, seq, head_dim = x.shape
    tokens = b.transpose(f"{name}_tokens", x, (0, 2, 1, 3))
    return b.reshape(name, tokens, (batch, seq, heads * head_dim))


def common_header(title, dtype, batch, seq):
    """The paragraphs every file starts with."""
    return [
        f"{title}, {dtype}, batch {batch}, sequence length {seq}.",
        "Generated by examples/generate.py; do not edit by hand, rerun it.",
        "",
        "Linear weights are stored [in, out] (PyTorch's nn.Linear weight "
        "transposed), so a linear layer is tfuse.matmul, then tfuse.add of "
        "the bias where it has one.",
        "",
    ]


# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------


def bert_large_layer(dtype, batch, seq):
    """One BERT-Large encoder layer (post-LN), as HuggingFace's BertLayer."""
    hidden, heads, ffn, eps, p = 1024, 16, 4096, 1e-12, 0.1
    head_dim = hidden // heads
    b = FuncBuilder(dtype)
    x = b.argument("x", (batch, seq, hidden), "input hidden states")
    mask = b.argument("attn_mask", (batch, 1, 1, seq),
                      "additive padding mask (0 keeps a key)")
    wq = b.argument("wq", (hidden, hidden), "query weight")
    bq = b.argument("bq", (hidden,), "query bias")
    wk = b.argument("wk", (hidden, hidden), "key weight")
    bk = b.argument("bk", (hidden,), "key bias")
    wv = b.argument("wv", (hidden, hidden), "value weight")
    bv = b.argument("bv", (hidden,), "value bias")
    wo = b.argument("wo", (hidden, hidden), "attention output dense weight")
    bo = b.argument("bo", (hidden,), "attention output dense bias")
    ln1_gamma = b.argument("ln1_gamma", (hidden,), "attention LayerNorm gamma")
    ln1_beta = b.argument("ln1_beta", (hidden,), "attention LayerNorm beta")
    w_ffn_up = b.argument("w_ffn_up", (hidden, ffn),
                          "intermediate dense weight")
    b_ffn_up = b.argument("b_ffn_up", (ffn,), "intermediate dense bias")
    w_ffn_down = b.argument("w_ffn_down", (ffn, hidden), "output dense weight")
    b_ffn_down = b.argument("b_ffn_down", (hidden,), "output dense bias")
    ln2_gamma = b.argument("ln2_gamma", (hidden,), "output LayerNorm gamma")
    ln2_beta = b.argument("ln2_beta", (hidden,), "output LayerNorm beta")

    b.comment("Self-attention: separate Q, K, V projections with biases.")
    q = split_heads(b, "q", linear(b, "q", x, wq, bq), heads)
    k = split_heads(b, "k", linear(b, "k", x, wk, bk), heads)
    v = split_heads(b, "v", linear(b, "v", x, wv, bv), heads)
    ctx = b.attention("ctx_heads", q, k, v, mask=mask,
                      scale=head_dim ** -0.5,
                      dropout=(p, 1, "attention probabilities"))
    ctx = merge_heads(b, "ctx", ctx)
    b.comment("Attention output: dense, dropout, residual, LayerNorm.")
    attn = linear(b, "attn_out", ctx, wo, bo)
    attn = b.dropout("attn_out_dropped", attn, p, 2,
                     "after the attention output dense")
    x1 = b.layer_norm("x1", b.add("attn_residual", attn, x),
                      ln1_gamma, ln1_beta, eps)
    b.comment("Feed-forward: dense, GELU (erf), dense, dropout, residual, "
              "LayerNorm.")
    up = b.gelu("ffn_act", linear(b, "ffn_up", x1, w_ffn_up, b_ffn_up))
    down = linear(b, "ffn_down", up, w_ffn_down, b_ffn_down)
    down = b.dropout("ffn_down_dropped", down, p, 3,
                     "after the FFN output dense")
    out = b.layer_norm("out", b.add("ffn_residual", down, x1),
                       ln2_gamma, ln2_beta, eps)

    header = common_header("BERT-Large encoder layer", dtype, batch, seq) + [
        f"Hidden {hidden}, {heads} heads of {head_dim}, FFN {ffn}; post-LN, "
        "as HuggingFace's BertLayer in training mode:",
        "  x1  = LayerNorm(x + dropout(attention_output_dense(attention(x))))",
        "  out = LayerNorm(x1 + dropout(output_dense(gelu("
        "intermediate_dense(x1)))))",
        f"LayerNorm eps {eps} with gamma and beta; GELU erf (approximate "
        f"none). Q, K and V are separate linear layers with biases; the "
        f"attention takes an additive padding mask [B, 1, 1, S], scale "
        f"1/sqrt({head_dim}) = {head_dim ** -0.5} and dropout {p} on the "
        "probabilities.",
    ]
    return b.render("bert_large_layer", out, header)


def llama_7b_block(dtype, batch, seq):
    """One LLaMA-7B-like decoder block: pre-RMSNorm, causal MHA, SwiGLU."""
    hidden, heads, ffn, eps = 4096, 32, 11008, 1e-6
    head_dim = hidden // heads
    b = FuncBuilder(dtype)
    x = b.argument("x", (batch, seq, hidden), "input hidden states")
    attn_norm = b.argument("attn_norm_gamma", (hidden,),
                           "attention RMSNorm gamma")
    wq = b.argument("wq", (hidden, hidden), "q_proj weight (no bias)")
    wk = b.argument("wk", (hidden, hidden), "k_proj weight (no bias)")
    wv = b.argument("wv", (hidden, hidden), "v_proj weight (no bias)")
    wo = b.argument("wo", (hidden, hidden), "o_proj weight (no bias)")
    ffn_norm = b.argument("ffn_norm_gamma", (hidden,), "FFN RMSNorm gamma")
    w_gate = b.argument("w_gate", (hidden, ffn), "gate_proj weight (no bias)")
    w_up = b.argument("w_up", (hidden, ffn), "up_proj weight (no bias)")
    w_down = b.argument("w_down", (ffn, hidden), "down_proj weight (no bias)")

    b.comment("Self-attention (pre-norm, causal, no biases, no rotary).")
    h = b.rms_norm("attn_norm", x, attn_norm, eps)
    q = split_heads(b, "q", linear(b, "q", h, wq), heads)
    k = split_heads(b, "k", linear(b, "k", h, wk), heads)
    v = split_heads(b, "v", linear(b, "v", h, wv), heads)
    ctx = b.attention("ctx_heads", q, k, v, scale=head_dim ** -0.5,
                      causal=True)
    ctx = merge_heads(b, "ctx", ctx)
    x1 = b.add("attn_residual", x, linear(b, "attn_out", ctx, wo))
    b.comment("SwiGLU feed-forward: down(silu(gate(x)) * up(x)).")
    h = b.rms_norm("ffn_norm", x1, ffn_norm, eps)
    gate = b.silu("ffn_gate_act", linear(b, "ffn_gate", h, w_gate))
    up = linear(b, "ffn_up", h, w_up)
    down = linear(b, "ffn_down", b.mul("ffn_hidden", gate, up), w_down)
    out = b.add("out", x1, down)

    header = common_header("LLaMA-7B-like decoder block", dtype, batch,
                           seq) + [
        f"Hidden {hidden}, {heads} heads of {head_dim}, FFN {ffn} (SwiGLU); "
        "pre-norm:",
        "  x1  = x + o_proj(attention(RMSNorm(x)))",
        "  out = x1 + down_proj(silu(gate_proj(h)) * up_proj(h)),"
        " h = RMSNorm(x1)",
        f"RMSNorm eps {eps} with gamma; q, k, v and o projections without "
        f"bias; causal attention with scale 1/sqrt({head_dim}) = "
        f"{head_dim ** -0.5}; no dropout. Rotary position embeddings are out "
        "of scope: q and k enter the attention unrotated.",
    ]
    return b.render("llama_7b_block", out, header)


def gpt2_block(dtype, batch, seq):
    """One GPT-2-small block: pre-LN, fused QKV, causal MHA, GELU tanh."""
    hidden, heads, ffn, eps, p = 768, 12, 3072, 1e-5, 0.1
    head_dim = hidden // heads
    b = FuncBuilder(dtype)
    x = b.argument("x", (batch, seq, hidden), "input hidden states")
    ln1_gamma = b.argument("ln1_gamma", (hidden,), "ln_1 gamma")
    ln1_beta = b.argument("ln1_beta", (hidden,), "ln_1 beta")
    w_qkv = b.argument("w_qkv", (hidden, 3 * hidden),
                       "attn.c_attn weight (fused q, k, v)")
    b_qkv = b.argument("b_qkv", (3 * hidden,), "attn.c_attn bias")
    w_attn_out = b.argument("w_attn_out", (hidden, hidden),
                            "attn.c_proj weight")
    b_attn_out = b.argument("b_attn_out", (hidden,), "attn.c_proj bias")
    ln2_gamma = b.argument("ln2_gamma", (hidden,), "ln_2 gamma")
    ln2_beta = b.argument("ln2_beta", (hidden,), "ln_2 beta")
    w_ffn_up = b.argument("w_ffn_up", (hidden, ffn), "mlp.c_fc weight")
    b_ffn_up = b.argument("b_ffn_up", (ffn,), "mlp.c_fc bias")
    w_ffn_down = b.argument("w_ffn_down", (ffn, hidden), "mlp.c_proj weight")
    b_ffn_down = b.argument("b_ffn_down", (hidden,), "mlp.c_proj bias")

    b.comment("Self-attention: ln_1, fused QKV projection split into q, k, v.")
    h = b.layer_norm("attn_ln", x, ln1_gamma, ln1_beta, eps)
    qkv = linear(b, "qkv", h, w_qkv, b_qkv)
    q, k, v = b.split(["q", "k", "v"], qkv, 2, [hidden] * 3)
    q, k, v = [split_heads(b, t.name, t, heads) for t in (q, k, v)]
    ctx = b.attention("ctx_heads", q, k, v, scale=head_dim ** -0.5,
                      causal=True,
                      dropout=(p, 1, "attention probabilities (attn_dropout)"))
    ctx = merge_heads(b, "ctx", ctx)
    attn = linear(b, "attn_out", ctx, w_attn_out, b_attn_out)
    attn = b.dropout("attn_out_dropped", attn, p, 2,
                     "after attn.c_proj (resid_dropout)")
    x1 = b.add("attn_residual", x, attn)
    b.comment("MLP: ln_2, c_fc, GELU (tanh), c_proj, dropout, residual.")
    h = b.layer_norm("ffn_ln", x1, ln2_gamma, ln2_beta, eps)
    up = b.gelu("ffn_act", linear(b, "ffn_up", h, w_ffn_up, b_ffn_up),
                approximate="tanh")
    down = linear(b, "ffn_down", up, w_ffn_down, b_ffn_down)
    down = b.dropout("ffn_down_dropped", down, p, 3,
                     "after mlp.c_proj (mlp dropout)")
    out = b.add("out", x1, down)

    header = common_header("GPT-2-small block", dtype, batch, seq) + [
        f"Hidden {hidden}, {heads} heads of {head_dim}, MLP {ffn}; pre-LN, as "
        "HuggingFace's GPT2Block in training mode:",
        "  x1  = x + dropout(c_proj(attention(split(c_attn(ln_1(x))))))",
        "  out = x1 + dropout(mlp.c_proj(gelu_tanh(mlp.c_fc(ln_2(x1)))))",
        f"LayerNorm eps {eps} with gamma and beta. c_attn is one "
        f"[{hidden}, {3 * hidden}] projection (with bias) split along the "
        "last axis into q, k and v; causal attention with scale "
        f"1/sqrt({head_dim}) = {head_dim ** -0.5} and dropout {p} on the "
        "probabilities; GELU with approximate = tanh.",
    ]
    return b.render("gpt2_block", out, header)


#: (file stem, builder, full-size batch, full-size sequence length)
MODELS = [
    ("bert-large", bert_large_layer, 32, 512),
    ("llama-7b", llama_7b_block, 4, 2048),
    ("gpt2", gpt2_block, 8, 1024),
]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for stem, build, full_batch, full_seq in MODELS:
        sizes = (("", full_batch, full_seq),
                 (".small", SMALL_BATCH, SMALL_SEQ))
        for dtype in DTYPES:
            for suffix, batch, seq in sizes:
                path = os.path.join(here, f"{stem}.{dtype}{suffix}.mlir")
                with open(path, "w", encoding="utf-8") as f:
                    f.write(build(dtype, batch, seq))
                print(f"wrote {path}")


if __name__ == "__main__":
    main()
