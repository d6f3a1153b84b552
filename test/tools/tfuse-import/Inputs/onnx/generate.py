#!/usr/bin/python3
"""Writes the small ONNX models of tfuse-import's ONNX tests.

Run it with Debian's Python, which has python3-onnx (1.12) and numpy:

    /usr/bin/python3 test/tools/tfuse-import/Inputs/onnx/generate.py

It (re)writes, next to itself:

    encoder-layer.onnx  a BERT-like post-LN encoder layer (hidden 32, 4 heads,
                        FFN 64) with LayerNormalization, an erf GELU spelt out
                        node by node, an additive mask input and symbolic
                        batch and sequence dimensions
    gpt2-block.onnx     a GPT-2-like pre-LN block (hidden 32, 2 heads) at
                        opset 13: token and position Gathers, LayerNorm spelt
                        out (ReduceMean, Sub, Pow, Sqrt, Div), fused QKV
                        Split, a constant causal mask, tanh GELU spelt out
    ops.onnx            one node of each remaining supported operator
    pytorch-ops.onnx    the shape, index and mask arithmetic of PyTorch's
                        exporters (Shape, Range, Expand, Where, Slice, ...)
    rotary.onnx         rotary embeddings spelt out as Hugging Face writes
                        them (two that are, one that is not a rotation)
    attention.onnx      eager attention spelt out in the variants PyTorch
                        exports (causal masks, padding, repeat_kv) and near
                        misses (see attention_patterns)
    unsupported.onnx    Conv, LSTM and NonZero nodes among supported ones
    bad-pow.onnx        a Pow with exponent 4 (no tfuse equivalent)
    malformed.onnx      bytes that are not a protobuf ModelProto
    invalid-*.onnx      one malformed node each, for the errors it must
                        raise (see invalid_nodes)

The models are built with onnx.helper only (no PyTorch); weights come from a
seeded numpy generator, so the files are reproducible.
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
RNG = np.random.RandomState(2024)


def weight(name, *shape):
    """A float32 initializer with small random values."""
    data = (RNG.standard_normal(shape) * 0.05).astype(np.float32)
    return numpy_helper.from_array(data, name)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def scalar(name, value):
    return helper.make_node("Constant", [], [name], name=name,
                            value=helper.make_tensor(name, TensorProto.FLOAT,
                                                     [], [value]))


def save(model, name, check=True):
    if check:
        onnx.checker.check_model(model)
    path = os.path.join(HERE, name)
    onnx.save(model, path)
    print(f"wrote {path}")


def linear(nodes, inits, x, name, n_in, n_out):
    """x @ W + b with W [in, out]."""
    inits += [weight(f"{name}.weight", n_in, n_out),
              weight(f"{name}.bias", n_out)]
    nodes += [
        helper.make_node("MatMul", [x, f"{name}.weight"], [f"{name}.mm"],
                         name=f"{name}/MatMul"),
        helper.make_node("Add", [f"{name}.mm", f"{name}.bias"], [name],
                         name=f"{name}/Add"),
    ]
    return name


def split_heads(nodes, x, name, heads, head_dim):
    """[B, S, H*D] -> [B, H, S, D]."""
    nodes += [
        helper.make_node("Reshape", [x, f"{name}.shape"], [f"{name}.split"],
                         name=f"{name}/Reshape"),
        helper.make_node("Transpose", [f"{name}.split"], [f"{name}.heads"],
                         name=f"{name}/Transpose", perm=[0, 2, 1, 3]),
    ]
    return f"{name}.heads", ints(f"{name}.shape", [0, 0, heads, head_dim])


def attention(nodes, inits, q, k, v, heads, head_dim, mask=None):
    """softmax(q k^T / sqrt(d) + mask) v, merged back to [B, S, H*D]."""
    nodes += [
        helper.make_node("Transpose", [k], ["k.t"], name="attn/TransposeK",
                         perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", [q, "k.t"], ["scores"], name="attn/QK"),
        scalar("attn.sqrt_d", float(np.sqrt(head_dim))),
        helper.make_node("Div", ["scores", "attn.sqrt_d"], ["scaled"],
                         name="attn/Scale"),
    ]
    logits = "scaled"
    if mask:
        nodes.append(helper.make_node("Add", ["scaled", mask], ["masked"],
                                      name="attn/Mask"))
        logits = "masked"
    nodes += [
        helper.make_node("Softmax", [logits], ["probs"], name="attn/Softmax",
                         axis=-1),
        helper.make_node("MatMul", ["probs", v], ["ctx.heads"],
                         name="attn/PV"),
        helper.make_node("Transpose", ["ctx.heads"], ["ctx.tokens"],
                         name="attn/Merge", perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["ctx.tokens", "ctx.shape"], ["ctx"],
                         name="attn/MergeReshape"),
    ]
    inits.append(ints("ctx.shape", [0, 0, heads * head_dim]))
    return "ctx"


def encoder_layer():
    hidden, heads, ffn = 32, 4, 64
    head_dim = hidden // heads
    nodes, inits = [], []
    q = linear(nodes, inits, "x", "q", hidden, hidden)
    k = linear(nodes, inits, "x", "k", hidden, hidden)
    v = linear(nodes, inits, "x", "v", hidden, hidden)
    heads_of = {}
    for t in (q, k, v):
        heads_of[t], shape = split_heads(nodes, t, t, heads, head_dim)
        inits.append(shape)
    ctx = attention(nodes, inits, heads_of[q], heads_of[k], heads_of[v],
                    heads, head_dim, mask="mask")
    out = linear(nodes, inits, ctx, "attn_out", hidden, hidden)
    inits += [weight("ln1.weight", hidden), weight("ln1.bias", hidden)]
    nodes += [
        helper.make_node("Add", [out, "x"], ["res1"], name="res1"),
        helper.make_node("LayerNormalization", ["res1", "ln1.weight",
                                                "ln1.bias"], ["x1"],
                         name="ln1", axis=-1, epsilon=1e-12),
    ]
    up = linear(nodes, inits, "x1", "ffn_up", hidden, ffn)
    # gelu(x) = x * 0.5 * (1 + erf(x / sqrt(2))), as torch.onnx exports it.
    nodes += [
        scalar("gelu.sqrt2", float(np.sqrt(2.0))),
        scalar("gelu.one", 1.0),
        scalar("gelu.half", 0.5),
        helper.make_node("Div", [up, "gelu.sqrt2"], ["gelu.div"],
                         name="gelu/Div"),
        helper.make_node("Erf", ["gelu.div"], ["gelu.erf"], name="gelu/Erf"),
        helper.make_node("Add", ["gelu.erf", "gelu.one"], ["gelu.add"],
                         name="gelu/Add"),
        helper.make_node("Mul", [up, "gelu.add"], ["gelu.mul"],
                         name="gelu/Mul"),
        helper.make_node("Mul", ["gelu.mul", "gelu.half"], ["gelu"],
                         name="gelu/Half"),
    ]
    down = linear(nodes, inits, "gelu", "ffn_down", ffn, hidden)
    inits += [weight("ln2.weight", hidden), weight("ln2.bias", hidden)]
    nodes += [
        helper.make_node("Add", [down, "x1"], ["res2"], name="res2"),
        helper.make_node("LayerNormalization", ["res2", "ln2.weight",
                                                "ln2.bias"], ["y"],
                         name="ln2", epsilon=1e-12),
    ]
    graph = helper.make_graph(
        nodes, "encoder_layer",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", "sequence", hidden]),
         helper.make_tensor_value_info("mask", TensorProto.FLOAT,
                                       ["batch", 1, 1, "sequence"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       ["batch", "sequence", hidden])],
        inits)
    model = helper.make_model(graph, producer_name="tfuse generate.py",
                              opset_imports=[helper.make_opsetid("", 17)])
    save(model, "encoder-layer.onnx")


def layer_norm_spelt_out(nodes, inits, x, name, width):
    """(x - mean) / sqrt(var + eps) * g + b from ReduceMean, Sub, Pow..."""
    inits += [weight(f"{name}.weight", width), weight(f"{name}.bias", width)]
    nodes += [
        helper.make_node("ReduceMean", [x], [f"{name}.mean"],
                         name=f"{name}/Mean", axes=[-1]),
        helper.make_node("Sub", [x, f"{name}.mean"], [f"{name}.d"],
                         name=f"{name}/Sub"),
        scalar(f"{name}.two", 2.0),
        helper.make_node("Pow", [f"{name}.d", f"{name}.two"], [f"{name}.sq"],
                         name=f"{name}/Pow"),
        helper.make_node("ReduceMean", [f"{name}.sq"], [f"{name}.var"],
                         name=f"{name}/Var", axes=[-1]),
        scalar(f"{name}.eps", 1e-5),
        helper.make_node("Add", [f"{name}.var", f"{name}.eps"],
                         [f"{name}.vareps"], name=f"{name}/AddEps"),
        helper.make_node("Sqrt", [f"{name}.vareps"], [f"{name}.std"],
                         name=f"{name}/Sqrt"),
        helper.make_node("Div", [f"{name}.d", f"{name}.std"],
                         [f"{name}.norm"], name=f"{name}/Div"),
        helper.make_node("Mul", [f"{name}.norm", f"{name}.weight"],
                         [f"{name}.scaled"], name=f"{name}/Scale"),
        helper.make_node("Add", [f"{name}.scaled", f"{name}.bias"], [name],
                         name=f"{name}/Shift"),
    ]
    return name


def gpt2_block():
    hidden, heads, vocab, seq = 32, 2, 50, 8
    head_dim = hidden // heads
    nodes, inits = [], []
    inits += [weight("wte", vocab, hidden), weight("wpe", seq, hidden),
              ints("positions", list(range(seq)))]
    nodes += [
        helper.make_node("Gather", ["wte", "input_ids"], ["tok"],
                         name="wte/Gather"),
        helper.make_node("Gather", ["wpe", "positions"], ["pos"],
                         name="wpe/Gather"),
        helper.make_node("Add", ["tok", "pos"], ["h0"], name="embed"),
    ]
    h = layer_norm_spelt_out(nodes, inits, "h0", "ln_1", hidden)
    qkv = linear(nodes, inits, h, "c_attn", hidden, 3 * hidden)
    inits.append(ints("qkv.sizes", [hidden] * 3))
    nodes.append(helper.make_node("Split", [qkv, "qkv.sizes"],
                                  ["q", "k", "v"], name="qkv/Split", axis=2))
    heads_of = {}
    for t in ("q", "k", "v"):
        heads_of[t], shape = split_heads(nodes, t, t, heads, head_dim)
        inits.append(shape)
    causal = np.triu(np.full((seq, seq), -1e9, dtype=np.float32), k=1)
    nodes.append(helper.make_node(
        "Constant", [], ["causal"], name="causal",
        value=numpy_helper.from_array(causal, "causal")))
    ctx = attention(nodes, inits, heads_of["q"], heads_of["k"],
                    heads_of["v"], heads, head_dim, mask="causal")
    out = linear(nodes, inits, ctx, "c_proj", hidden, hidden)
    nodes.append(helper.make_node("Add", ["h0", out], ["x1"], name="res1"))
    h2 = layer_norm_spelt_out(nodes, inits, "x1", "ln_2", hidden)
    up = linear(nodes, inits, h2, "c_fc", hidden, 4 * hidden)
    # gelu_new: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
    nodes += [
        scalar("g.three", 3.0), scalar("g.c", 0.044715),
        scalar("g.k", float(np.sqrt(2.0 / np.pi))), scalar("g.one", 1.0),
        scalar("g.half", 0.5),
        helper.make_node("Pow", [up, "g.three"], ["g.cube"], name="g/Pow"),
        helper.make_node("Mul", ["g.cube", "g.c"], ["g.cc"], name="g/Mul1"),
        helper.make_node("Add", [up, "g.cc"], ["g.inner"], name="g/Add1"),
        helper.make_node("Mul", ["g.inner", "g.k"], ["g.arg"], name="g/Mul2"),
        helper.make_node("Tanh", ["g.arg"], ["g.tanh"], name="g/Tanh"),
        helper.make_node("Add", ["g.tanh", "g.one"], ["g.add"], name="g/Add2"),
        helper.make_node("Mul", [up, "g.add"], ["g.mul"], name="g/Mul3"),
        helper.make_node("Mul", ["g.mul", "g.half"], ["gelu"], name="g/Half"),
    ]
    down = linear(nodes, inits, "gelu", "mlp_proj", 4 * hidden, hidden)
    nodes.append(helper.make_node("Add", ["x1", down], ["y"], name="res2"))
    graph = helper.make_graph(
        nodes, "gpt2_block",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64,
                                       [2, seq])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       [2, seq, hidden])],
        inits)
    model = helper.make_model(graph, producer_name="tfuse generate.py",
                              opset_imports=[helper.make_opsetid("", 13)])
    save(model, "gpt2-block.onnx")


def ops():
    """One node of each operator the two layers above do not use."""
    nodes = [
        helper.make_node("Gemm", ["a", "w", "c"], ["gemm"], name="gemm",
                         transB=1, alpha=0.5, beta=2.0),
        helper.make_node("Relu", ["gemm"], ["relu"], name="relu"),
        helper.make_node("Sigmoid", ["relu"], ["sigmoid"], name="sigmoid"),
        helper.make_node("Exp", ["sigmoid"], ["exp"], name="exp"),
        helper.make_node("Log", ["exp"], ["log"], name="log"),
        helper.make_node("Neg", ["log"], ["neg"], name="neg"),
        helper.make_node("Identity", ["neg"], ["identity"], name="identity"),
        helper.make_node("Dropout", ["identity"], ["dropout"], name="dropout"),
        helper.make_node("Cast", ["dropout"], ["cast"], name="cast",
                         to=TensorProto.FLOAT),
        helper.make_node("Concat", ["cast", "a"], ["concat"], name="concat",
                         axis=1),
        helper.make_node("ReduceSum", ["concat", "axes1"], ["rsum"],
                         name="rsum", keepdims=0),
        helper.make_node("ReduceMax", ["concat"], ["rmax"], name="rmax",
                         axes=[0], keepdims=1),
        helper.make_node("Sub", ["concat", "rmax"], ["sub"], name="sub"),
        helper.make_node("Gelu", ["sub"], ["gelu"], name="gelu",
                         domain="com.microsoft"),
        helper.make_node("FastGelu", ["gelu", "fg.bias"], ["fastgelu"],
                         name="fastgelu", domain="com.microsoft"),
        helper.make_node("Pow", ["fastgelu", "half"], ["pow"], name="pow"),
        helper.make_node("Sqrt", ["pow"], ["sqrt"], name="sqrt"),
    ]
    graph = helper.make_graph(
        nodes, "ops",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [4, 6])],
        [helper.make_tensor_value_info("sqrt", TensorProto.FLOAT, [4, 9]),
         helper.make_tensor_value_info("rsum", TensorProto.FLOAT, [4])],
        [weight("w", 3, 6), weight("c", 3), weight("fg.bias", 9),
         ints("axes1", [1]),
         numpy_helper.from_array(np.array(0.5, dtype=np.float32), "half")])
    model = helper.make_model(
        graph, producer_name="tfuse generate.py",
        opset_imports=[helper.make_opsetid("", 13),
                       helper.make_opsetid("com.microsoft", 1)])
    save(model, "ops.onnx", check=False)


def unsupported():
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c1"], name="conv_a"),
        helper.make_node("Add", ["c1", "c1"], ["s"], name="add"),
        helper.make_node("LSTM", ["s", "w", "w"], ["l"], name="lstm_0"),
        helper.make_node("Conv", ["l", "w"], ["c2"], name="conv_b"),
        helper.make_node("NonZero", ["c2"], ["nz"]),
    ]
    graph = helper.make_graph(
        nodes, "unsupported",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4]),
         helper.make_tensor_value_info("w", TensorProto.FLOAT, [1, 1, 1, 1])],
        [helper.make_tensor_value_info("nz", TensorProto.INT64, None)])
    model = helper.make_model(graph, producer_name="tfuse generate.py",
                              opset_imports=[helper.make_opsetid("", 17)])
    save(model, "unsupported.onnx", check=False)


def bad_pow():
    nodes = [helper.make_node("Pow", ["x", "four"], ["y"], name="pow4")]
    graph = helper.make_graph(
        nodes, "bad_pow",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
        [numpy_helper.from_array(np.array(4.0, dtype=np.float32), "four")])
    model = helper.make_model(graph, producer_name="tfuse generate.py",
                              opset_imports=[helper.make_opsetid("", 17)])
    save(model, "bad-pow.onnx")


def malformed():
    path = os.path.join(HERE, "malformed.onnx")
    with open(path, "wb") as f:
        f.write(b"this is not an ONNX model\n")
    print(f"wrote {path}")


def invalid(name, nodes, inits=(), opset=17, shape=(2, 32),
            dtype=TensorProto.FLOAT):
    """invalid-NAME.onnx: a graph of input x (default float [2, 32]) that
    the importer refuses. Not checked: the checker refuses most of these
    too."""
    graph = helper.make_graph(
        nodes, f"invalid_{name}".replace("-", "_"),
        [helper.make_tensor_value_info("x", dtype, list(shape))],
        [helper.make_tensor_value_info(nodes[-1].output[0],
                                       TensorProto.FLOAT, None)],
        list(inits))
    model = helper.make_model(graph, producer_name="tfuse generate.py",
                              opset_imports=[helper.make_opsetid("", opset)])
    save(model, f"invalid-{name}.onnx", check=False)


def invalid_nodes():
    node = helper.make_node
    invalid("relu-inputs", [node("Relu", ["x", "x", "x"], ["y"], name="relu3")])
    invalid("gemm-inputs", [node("Gemm", ["x"] * 4, ["y"], name="gemm4")])
    invalid("softmax-outputs",
            [node("Softmax", ["x"], ["y", "z"], name="softmax2")])
    invalid("concat-no-inputs", [node("Concat", [], ["y"], name="concat0",
                                      axis=0)])
    invalid("gather-float-indices",
            [node("Gather", ["x", "x"], ["y"], name="lookup")])
    invalid("produced-twice", [node("Relu", ["x"], ["y"], name="first"),
                               node("Neg", ["x"], ["y"], name="second")])
    invalid("output-is-input", [node("Relu", ["x"], ["x"], name="inplace")])
    invalid("output-is-initializer",
            [node("Relu", ["x"], ["w"], name="overwrite")],
            inits=[ints("w", [1, 2])])
    invalid("negative-split",
            [node("Split", ["x", "sizes"], ["y", "z"], name="split", axis=1)],
            inits=[ints("sizes", [-8, 40])], opset=13)
    # Sizes whose sum wraps around to the 32 columns (found by fuzzing).
    invalid("split-overflow",
            [node("Split", ["x", "sizes"], ["y", "z", "w"], name="split",
                  axis=1)],
            inits=[ints("sizes", [2**63 - 1, 2**63 - 1, 34])], opset=13)
    invalid("axes-twice",
            [node("ReduceMean", ["x", "axes"], ["y"], name="mean", axes=[1])],
            inits=[ints("axes", [1])], opset=18)
    invalid("gelu-approximate",
            [node("Gelu", ["x"], ["y"], name="gelu", approximate="fast")],
            opset=20)
    # Sizes: every tensor has at most 2^40 elements and no negative
    # dimension, whatever the file says.
    invalid("huge-input", [node("Relu", ["x"], ["y"], name="relu")],
            shape=(2**62, 4))
    invalid("negative-dim", [node("Relu", ["x"], ["y"], name="relu")],
            shape=(2, -3))
    # An initializer whose dims claim 2^62 elements (and hold none).
    huge = TensorProto(name="w", data_type=TensorProto.FLOAT,
                       dims=[2**31, 2**31])
    invalid("huge-initializer", [node("Add", ["x", "w"], ["y"], name="add")],
            inits=[huge])
    invalid("huge-reshape",
            [node("Reshape", ["x", "shape"], ["y"], name="reshape")],
            inits=[ints("shape", [2**62, 4, -1])])
    external_data()


def external_data():
    """Initializers whose data live in another file (here one outside the
    model's folder). A weight becomes an argument, its data never read; an
    initializer whose values the importer needs (a Reshape's shape) is
    refused, and the file is never opened."""
    def external(name, dtype, dims):
        tensor = TensorProto(name=name, data_type=dtype, dims=dims)
        tensor.data_location = TensorProto.EXTERNAL
        entry = tensor.external_data.add()
        entry.key, entry.value = "location", "../../../../../etc/passwd"
        return tensor
    invalid("external-data",
            [helper.make_node("Add", ["x", "w"], ["s"], name="add"),
             helper.make_node("Reshape", ["s", "shape"], ["y"],
                              name="reshape")],
            inits=[external("w", TensorProto.FLOAT, [2, 32]),
                   external("shape", TensorProto.INT64, [2])])

def pytorch_ops():
    """pytorch-ops.onnx: the shape, index and mask arithmetic that PyTorch's
    exporters write, on input_ids [2, 8] and x [2, 8, 16]: the ids viewed
    as [B * S] with B and S read from Shape, positions from Range,
    Unsqueeze and Expand, a causal mask from Range, Unsqueeze and
    GreaterOrEqual applied by Where with -inf, a Slice from the end, a
    Slice with a negative step of a known tensor, a Cast of it to float,
    Expand of an activation, Squeeze, Reciprocal and a Where on a
    condition that is true throughout."""
    rng = np.random.RandomState(14)
    node = helper.make_node

    def tensor(name, values, dtype):
        return numpy_helper.from_array(np.array(values, dtype=dtype), name)

    nodes = [
        node("Shape", ["x"], ["shape"], name="shape"),
        node("Gather", ["shape", "zero"], ["batch"], name="batch", axis=0),
        node("Gather", ["shape", "one"], ["seq"], name="seq", axis=0),
        node("Mul", ["batch", "seq"], ["tokens"], name="tokens"),
        node("Unsqueeze", ["tokens", "axis0"], ["flat_shape"],
             name="flat_shape"),
        node("Reshape", ["input_ids", "flat_shape"], ["flat_ids"],
             name="flat_ids"),
        node("Gather", ["wte", "flat_ids"], ["flat_emb"], name="wte_lookup"),
        node("Unsqueeze", ["batch", "axis0"], ["batch_1"], name="batch_1"),
        node("Unsqueeze", ["seq", "axis0"], ["seq_1"], name="seq_1"),
        node("Concat", ["batch_1", "seq_1", "minus1"], ["emb_shape"],
             name="emb_shape", axis=0),
        node("Reshape", ["flat_emb", "emb_shape"], ["emb"], name="emb"),
        node("Range", ["zero", "seq", "one"], ["positions"],
             name="positions"),
        node("Unsqueeze", ["positions", "axis0"], ["positions_row"],
             name="positions_row"),
        node("Concat", ["batch_1", "seq_1"], ["ids_shape"], name="ids_shape",
             axis=0),
        node("Expand", ["positions_row", "ids_shape"], ["position_ids"],
             name="position_ids"),
        node("Gather", ["wpe", "position_ids"], ["pos_emb"],
             name="wpe_lookup"),
        node("Add", ["emb", "pos_emb"], ["h0"], name="embed"),
        node("Add", ["h0", "x"], ["h"], name="residual"),
        node("Transpose", ["h"], ["ht"], name="ht", perm=[0, 2, 1]),
        node("MatMul", ["h", "ht"], ["scores"], name="scores"),
        node("Unsqueeze", ["positions", "axis1"], ["rows"], name="rows"),
        node("GreaterOrEqual", ["rows", "positions_row"], ["causal"],
             name="causal"),
        node("Where", ["causal", "scores", "minus_inf"], ["masked"],
             name="mask"),
        node("Softmax", ["masked"], ["probs"], name="softmax", axis=-1),
        node("Slice", ["probs", "minus4", "int_max", "minus1"], ["tail"],
             name="tail"),
        node("Slice", ["positions", "minus1", "int_min", "axis0", "minus2"],
             ["odd"], name="odd"),
        node("Cast", ["odd"], ["odd_f"], name="odd_f", to=TensorProto.FLOAT),
        node("Add", ["tail", "odd_f"], ["shifted"], name="shifted"),
        node("Unsqueeze", ["shifted", "axis1"], ["shifted_1"],
             name="shifted_1"),
        node("Expand", ["shifted_1", "expand_to"], ["repeated"],
             name="repeat"),
        node("ReduceMean", ["repeated", "axis1"], ["mean"], name="mean",
             keepdims=1),
        node("Squeeze", ["mean", "axis1"], ["squeezed"], name="squeeze"),
        node("Reciprocal", ["squeezed"], ["inverse"], name="inverse"),
        node("ConstantOfShape", ["ones_shape"], ["all_true"], name="all_true",
             value=tensor("v", [True], np.bool_)),
        node("Where", ["all_true", "inverse", "zero_f"], ["y"], name="pick"),
    ]
    inits = [
        numpy_helper.from_array(
            (rng.standard_normal((32, 16)) * 0.5).astype(np.float32), "wte"),
        numpy_helper.from_array(
            (rng.standard_normal((8, 16)) * 0.5).astype(np.float32), "wpe"),
        tensor("zero", 0, np.int64), tensor("one", 1, np.int64),
        tensor("axis0", [0], np.int64), tensor("axis1", [1], np.int64),
        tensor("minus1", [-1], np.int64), tensor("minus2", [-2], np.int64),
        tensor("minus4", [-4], np.int64),
        tensor("int_max", [2**63 - 1], np.int64),
        tensor("int_min", [-2**63], np.int64),
        tensor("expand_to", [2, 3, 8, 4], np.int64),
        tensor("ones_shape", [2, 8, 4], np.int64),
        tensor("minus_inf", -np.inf, np.float32),
        tensor("zero_f", 0, np.float32),
    ]
    graph = helper.make_graph(
        nodes, "pytorch_ops",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64,
                                       [2, 8]),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8, 4])],
        inits)
    model = helper.make_model(graph, producer_name="tfuse generate.py",
                              opset_imports=[helper.make_opsetid("", 18)])
    save(model, "pytorch-ops.onnx", check=False)


def rotary():
    """rotary.onnx: Hugging Face's x * cos + rotate_half(x) * sin on
    x [1, 2, 4, 8] (rotate_half as two Slices, Neg and Concat) three
    times: with cos and sin tables of positions 0..3, frequencies
    10000^(-2i/8) and attention scaling 0.5 (initializers), the same
    tables as Constant nodes, and tables that are no rotation."""
    node = helper.make_node
    rng = np.random.RandomState(5)
    inv_freq = 10000.0 ** (-np.arange(0, 8, 2) / 8.0)
    angles = np.arange(4)[:, None] * np.concatenate([inv_freq, inv_freq])
    cos = (0.5 * np.cos(angles)).astype(np.float32).reshape(1, 1, 4, 8)
    sin = (0.5 * np.sin(angles)).astype(np.float32).reshape(1, 1, 4, 8)
    nodes, outputs = [], []
    for tag, c, s_ in (("init", "cos", "sin"), ("const", "cos_c", "sin_c"),
                       ("other", "cos_r", "sin_r")):
        nodes += [
            node("Slice", ["x", "zero", "four", "minus1"], [f"{tag}_lo"],
                 name=f"{tag}_lo"),
            node("Slice", ["x", "four", "int_max", "minus1"], [f"{tag}_hi"],
                 name=f"{tag}_hi"),
            node("Neg", [f"{tag}_hi"], [f"{tag}_neg"], name=f"{tag}_neg"),
            node("Concat", [f"{tag}_neg", f"{tag}_lo"], [f"{tag}_half"],
                 name=f"{tag}_half", axis=-1),
            node("Mul", ["x", c], [f"{tag}_direct"], name=f"{tag}_direct"),
            node("Mul", [f"{tag}_half", s_], [f"{tag}_rotated"],
                 name=f"{tag}_rotated"),
            node("Add", [f"{tag}_direct", f"{tag}_rotated"], [tag],
                 name=f"{tag}_rope"),
        ]
        outputs.append(helper.make_tensor_value_info(tag, TensorProto.FLOAT,
                                                     [1, 2, 4, 8]))
    nodes = [node("Constant", [], ["cos_c"], name="cos_c",
                  value=numpy_helper.from_array(cos, "cos_c")),
             node("Constant", [], ["sin_c"], name="sin_c",
                  value=numpy_helper.from_array(sin, "sin_c"))] + nodes
    inits = [numpy_helper.from_array(cos, "cos"),
             numpy_helper.from_array(sin, "sin"),
             numpy_helper.from_array(
                 rng.standard_normal((1, 1, 4, 8)).astype(np.float32),
                 "cos_r"),
             numpy_helper.from_array(
                 rng.standard_normal((1, 1, 4, 8)).astype(np.float32),
                 "sin_r"),
             ints("zero", [0]), ints("four", [4]), ints("minus1", [-1]),
             ints("int_max", [2**63 - 1])]
    graph = helper.make_graph(
        nodes, "rotary",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 8])],
        outputs, inits)
    model = helper.make_model(graph, producer_name="tfuse generate.py",
                              opset_imports=[helper.make_opsetid("", 18)])
    save(model, "rotary.onnx", check=False)


def invalid_pytorch_nodes():
    """What the import-time evaluation and the new activation converters
    refuse."""
    node = helper.make_node
    invalid("fold-activation",
            [node("GatherElements", ["x", "idx"], ["y"], name="select",
                  axis=1)],
            inits=[ints("idx", [[0], [1]])], opset=18)
    invalid("slice-step",
            [node("Slice", ["x", "s", "e", "a", "st"], ["y"], name="every2")],
            inits=[ints("s", [0]), ints("e", [32]), ints("a", [1]),
                   ints("st", [2])], opset=18)
    invalid("slice-empty",
            [node("Slice", ["x", "s", "e", "a"], ["y"], name="none")],
            inits=[ints("s", [5]), ints("e", [2]), ints("a", [1])],
            opset=18)
    invalid("unsqueeze-twice",
            [node("Unsqueeze", ["x", "a"], ["y"], name="unsqueeze")],
            inits=[ints("a", [1, 1])], opset=18)
    invalid("where-condition",
            [node("Where", ["x", "x", "x"], ["y"], name="select")], opset=18)
    invalid("where-select",
            [node("Neg", ["x"], ["n"], name="neg"),
             node("Where", ["c", "x", "n"], ["y"], name="select")],
            inits=[numpy_helper.from_array(
                np.arange(32) % 2 == 0, "c")], opset=18)
    invalid("expand-ints",
            [node("Expand", ["x", "to"], ["y"], name="expand")],
            inits=[ints("to", [3, 2, 32])], opset=18,
            dtype=TensorProto.INT64)
    invalid("cast-ints",
            [node("Cast", ["x"], ["y"], name="cast", to=TensorProto.FLOAT)],
            opset=18, dtype=TensorProto.INT64)
    invalid("huge-fold",
            [node("ConstantOfShape", ["shape"], ["big"], name="zeros"),
             node("Add", ["x", "big"], ["y"], name="add")],
            inits=[ints("shape", [4096, 8192])], opset=18)


def attention_patterns():
    """attention.onnx: PyTorch's eager attention softmax(q k^T * s + mask) v
    spelt out, one output per variant, on inputs q, k, v [1, 4, 8, 16], the
    grouped k2, v2 [1, 2, 8, 16] and a key-padding mask pad [1, 1, 1, 8]. The
    variants tfuse-import matches: a causal mask as an initializer
    (causal_init), the same as a Constant node (causal_const), a causal mask
    built by Range, LessOrEqual and Where (causal_where), a padding mask
    input (padding), repeat_kv by Unsqueeze, Expand and Reshape (gqa), the
    scale split over q and k^T (split_scale); and those it must not turn
    into a causal grouped attention: a mask one key off causal
    (near_causal), heads repeated by concatenation on the head axis
    (tiled_kv); and those it leaves decomposed: the mask scaled too
    (scale_after_mask), a negative scale (negative_scale), the softmax over
    the query axis (query_softmax)."""
    node = helper.make_node
    seq, head = 8, 16
    lowest = np.finfo(np.float32).min
    causal = np.triu(np.full((seq, seq), lowest, np.float32), 1)
    causal = causal.reshape(1, 1, seq, seq)
    near = np.triu(np.full((seq, seq), lowest, np.float32), 2)
    near = near.reshape(1, 1, seq, seq)
    nodes, outputs = [], []

    def attend(tag, q, k, v, mask=None, scale="inv_sqrt_d", op="Mul",
               axis=-1, mask_first=False):
        nodes.append(node("Transpose", [k], [f"{tag}_kt"], name=f"{tag}_kt",
                          perm=[0, 1, 3, 2]))
        nodes.append(node("MatMul", [q, f"{tag}_kt"], [f"{tag}_qk"],
                          name=f"{tag}_qk"))
        logits = f"{tag}_qk"
        steps = [("scale", op, scale), ("mask", "Add", mask)]
        if mask_first:
            steps.reverse()
        for what, kind, operand in steps:
            if operand is None:
                continue
            nodes.append(node(kind, [logits, operand], [f"{tag}_{what}"],
                              name=f"{tag}_{what}"))
            logits = f"{tag}_{what}"
        nodes.append(node("Softmax", [logits], [f"{tag}_p"],
                          name=f"{tag}_softmax", axis=axis))
        nodes.append(node("MatMul", [f"{tag}_p", v], [tag], name=tag))
        outputs.append(helper.make_tensor_value_info(
            tag, TensorProto.FLOAT, [1, 4, seq, head]))

    def repeat_kv(name):
        """[1, 2, 8, 16] -> [1, 2, 1, 8, 16] -> [1, 2, 2, 8, 16] ->
        [1, 4, 8, 16], as transformers' repeat_kv exports."""
        nodes.extend([
            node("Unsqueeze", [name, "axis2"], [f"{name}_u"],
                 name=f"{name}_u"),
            node("Expand", [f"{name}_u", "rep_shape"], [f"{name}_e"],
                 name=f"{name}_e"),
            node("Reshape", [f"{name}_e", "heads_shape"], [f"{name}_rep"],
                 name=f"{name}_rep"),
        ])
        return f"{name}_rep"

    nodes += [
        scalar("inv_sqrt_d", float(1.0 / np.sqrt(head))),
        scalar("sqrt_d", float(np.sqrt(head))),
        scalar("fourth_root", float(head ** -0.25)),
        scalar("minus", float(-1.0 / np.sqrt(head))),
        node("Constant", [], ["causal_c"], name="causal_c",
             value=numpy_helper.from_array(causal, "causal_c")),
        node("Constant", [], ["minus_inf"], name="minus_inf",
             value=numpy_helper.from_array(np.array(-np.inf, np.float32),
                                           "minus_inf")),
        # rows[i] = i, cols[j] = j, visible where j <= i.
        node("Range", ["zero", "n", "one"], ["idx"], name="idx"),
        node("Unsqueeze", ["idx", "axis1"], ["rows"], name="rows"),
        node("Unsqueeze", ["idx", "axis0"], ["cols"], name="cols"),
        node("LessOrEqual", ["cols", "rows"], ["visible"], name="visible"),
    ]
    attend("causal_init", "q", "k", "v", mask="causal_i")
    attend("causal_const", "q", "k", "v", mask="causal_c")
    # Where(visible, scores, -inf) after the scale.
    nodes += [
        node("Transpose", ["k"], ["where_kt"], name="where_kt",
             perm=[0, 1, 3, 2]),
        node("MatMul", ["q", "where_kt"], ["where_qk"], name="where_qk"),
        node("Div", ["where_qk", "sqrt_d"], ["where_scale"],
             name="where_scale"),
        node("Where", ["visible", "where_scale", "minus_inf"],
             ["where_mask"], name="where_mask"),
        node("Softmax", ["where_mask"], ["where_p"], name="where_softmax",
             axis=-1),
        node("MatMul", ["where_p", "v"], ["causal_where"],
             name="causal_where"),
    ]
    outputs.append(helper.make_tensor_value_info(
        "causal_where", TensorProto.FLOAT, [1, 4, seq, head]))
    attend("padding", "q", "k", "v", mask="pad", scale="sqrt_d", op="Div")
    attend("gqa", "q", repeat_kv("k2"), repeat_kv("v2"), mask="causal_c")
    nodes += [
        node("Mul", ["q", "fourth_root"], ["q_scaled"], name="q_scaled"),
        node("Transpose", ["k"], ["split_kt"], name="split_kt",
             perm=[0, 1, 3, 2]),
        node("Mul", ["split_kt", "fourth_root"], ["split_kt_scaled"],
             name="split_kt_scaled"),
        node("MatMul", ["q_scaled", "split_kt_scaled"], ["split_qk"],
             name="split_qk"),
        node("Softmax", ["split_qk"], ["split_p"], name="split_softmax",
             axis=-1),
        node("MatMul", ["split_p", "v"], ["split_scale"], name="split_scale"),
    ]
    outputs.append(helper.make_tensor_value_info(
        "split_scale", TensorProto.FLOAT, [1, 4, seq, head]))
    attend("near_causal", "q", "k", "v", mask="near_c")
    nodes += [
        node("Concat", ["k2", "k2"], ["k2_tiled"], name="k2_tiled", axis=1),
        node("Concat", ["v2", "v2"], ["v2_tiled"], name="v2_tiled", axis=1),
    ]
    attend("tiled_kv", "q", "k2_tiled", "v2_tiled", mask="causal_c")
    attend("scale_after_mask", "q", "k", "v", mask="causal_c",
           mask_first=True)
    attend("negative_scale", "q", "k", "v", scale="minus")
    attend("query_softmax", "q", "k", "v", axis=2)

    nodes.insert(0, node("Constant", [], ["near_c"], name="near_c",
                         value=numpy_helper.from_array(near, "near_c")))
    inputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)
              for name, shape in (("q", [1, 4, seq, head]),
                                  ("k", [1, 4, seq, head]),
                                  ("v", [1, 4, seq, head]),
                                  ("k2", [1, 2, seq, head]),
                                  ("v2", [1, 2, seq, head]),
                                  ("pad", [1, 1, 1, seq]))]
    inits = [numpy_helper.from_array(causal, "causal_i"),
             ints("zero", 0), ints("n", seq), ints("one", 1),
             ints("axis0", [0]), ints("axis1", [1]), ints("axis2", [2]),
             ints("rep_shape", [1, 2, 2, seq, head]),
             ints("heads_shape", [1, 4, seq, head])]
    graph = helper.make_graph(nodes, "attention", inputs, outputs, inits)
    model = helper.make_model(graph, producer_name="tfuse generate.py",
                              opset_imports=[helper.make_opsetid("", 18)])
    save(model, "attention.onnx")


if __name__ == "__main__":
    encoder_layer()
    gpt2_block()
    ops()
    unsupported()
    bad_pow()
    malformed()
    invalid_nodes()
    pytorch_ops()
    invalid_pytorch_nodes()
    rotary()
    attention_patterns()
