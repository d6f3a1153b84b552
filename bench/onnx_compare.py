#!/usr/bin/env python3
"""ONNX files exported by PyTorch, checked against onnxruntime (GPU machine).

The ONNX front end of tfuse-import needs LLVM, which the GPU machine does not
have, so the check takes two device runs with one step here between them:

  1. device: `onnx_compare.py export --out-dir DIR` builds small BERT, GPT-2
     and LLaMA models (transformers classes from the config dicts below,
     random init, eval, eager attention, f32), exports each with
     torch.onnx.export at fixed shapes (batch 2, sequence 16), once with
     each exporter (the dynamo one, PyTorch's default, and the TorchScript
     one), into DIR/<name>-dynamo.onnx and DIR/<name>-torchscript.onnx
     (vocabulary 256, hidden 32: ~100 KB each, small enough to be the lit
     tests' inputs; bench/device-models.sh tars them into
     $OUT/models/onnx-exports.tgz); an exporter that fails is reported and
     the other one's file is still written;
  2. here: `ONNX_SRC=DIR bash bench/compile-models-bundles.sh` imports and
     compiles each into bundles/onnx/<name> (model.onnx copied in);
  3. device: `onnx_compare.py compare --bundles bundles/onnx` (run by
     bench/device-models.sh when bundles/onnx exists) writes every
     initializer of model.onnx as the bundle argument of that name, random
     graph inputs, runs tfuse-run and onnxruntime (CPU provider, f32) and
     compares the first output: max |tfuse - ort| <= 1e-4 * max |ort|.

Here, without a GPU: `/usr/bin/python3 bench/onnx_compare.py local
FILE.onnx...` (Debian's python3-onnx and numpy) evaluates each file's graph
with numpy (the operators PyTorch's exports use) on seeded inputs, and the
same graph through tfuse-import and `tfuse-opt --tfuse-evaluate` (the CPU
reference) with the weights and inputs written in as Constant nodes. A
float input z, multiplied by 0, joins the token embedding (or each float
input), so the importer cannot evaluate the whole graph at import. It
compares the first output's sum and max |x| (the digest tfuse-evaluate
prints) to within 1e-4 relative.
"""

import argparse
import os
import subprocess
import sys
import time
import traceback

import numpy as np

BATCH, SEQ, VOCAB = 2, 16, 256
CONFIGS = {
    "bert-tiny": {"model_type": "bert", "hidden_size": 32,
                  "num_hidden_layers": 2, "num_attention_heads": 4,
                  "intermediate_size": 64, "vocab_size": VOCAB,
                  "max_position_embeddings": 64, "type_vocab_size": 2,
                  "hidden_act": "gelu", "layer_norm_eps": 1e-12},
    "gpt2-tiny": {"model_type": "gpt2", "n_embd": 32, "n_layer": 2,
                  "n_head": 4, "n_positions": 64, "vocab_size": VOCAB,
                  "activation_function": "gelu_new"},
    "llama-tiny": {"model_type": "llama", "hidden_size": 32,
                   "intermediate_size": 64, "num_attention_heads": 4,
                   "num_key_value_heads": 2, "num_hidden_layers": 2,
                   "hidden_act": "silu", "rms_norm_eps": 1e-6,
                   "max_position_embeddings": 64, "vocab_size": VOCAB,
                   "tie_word_embeddings": False},
}


def export(args):
    import torch
    import transformers
    os.makedirs(args.out_dir, exist_ok=True)
    failed = 0
    for name, d in CONFIGS.items():
        try:
            config = transformers.AutoConfig.for_model(**d)
            config._attn_implementation = "eager"
            auto = (transformers.AutoModelForMaskedLM
                    if d["model_type"] == "bert"
                    else transformers.AutoModelForCausalLM)
            torch.manual_seed(0)
            model = auto.from_config(config, attn_implementation="eager")
            model = model.float().eval()
            if hasattr(model.config, "use_cache"):
                model.config.use_cache = False
            ids = torch.randint(5, d["vocab_size"], (BATCH, SEQ))

            class Logits(torch.nn.Module):
                def __init__(self, inner):
                    super().__init__()
                    self.inner = inner

                def forward(self, input_ids):
                    return self.inner(input_ids=input_ids,
                                      use_cache=False).logits \
                        if d["model_type"] != "bert" else \
                        self.inner(input_ids=input_ids).logits

            for dynamo in (True, False):
                kind = "dynamo" if dynamo else "torchscript"
                path = os.path.join(args.out_dir, f"{name}-{kind}.onnx")
                try:
                    torch.onnx.export(Logits(model), (ids,), path,
                                      input_names=["input_ids"],
                                      output_names=["logits"],
                                      opset_version=18, dynamo=dynamo,
                                      external_data=False)
                    import onnx
                    m = onnx.load(path)
                    ops = sorted({n.op_type for n in m.graph.node})
                    print(f"{name}-{kind}: {os.path.getsize(path)} bytes, "
                          f"ops {' '.join(ops)}", flush=True)
                except Exception:
                    failed += 1
                    print(f"{name}-{kind}: export FAILED", flush=True)
                    traceback.print_exc()
        except Exception:
            failed += 1
            print(f"{name}: export FAILED", flush=True)
            traceback.print_exc()
    print(f"exported {2 * len(CONFIGS) - failed} of {2 * len(CONFIGS)} into "
          f"{args.out_dir}")
    return 1 if failed else 0


def compare(args):
    import onnx
    import onnxruntime as ort
    from onnx import numpy_helper
    rows = []
    os.makedirs(args.log_dir, exist_ok=True)
    logf = open(os.path.join(args.log_dir, "onnx-compare.log"), "w")
    for name in sorted(os.listdir(args.bundles)):
        path = os.path.join(args.bundles, name)
        row = [name, "-", "-", "-", "ERROR", ""]
        try:
            model_path = os.path.join(path, "model.onnx")
            m = onnx.load(model_path)
            inits = {i.name: numpy_helper.to_array(i) for i in
                     m.graph.initializer}
            work = os.path.join("/tmp/onnx-compare-work", name)
            os.makedirs(os.path.join(work, "out"), exist_ok=True)
            rng = np.random.default_rng(0)
            import json
            plan = json.load(open(os.path.join(path, "plan.json")))
            buffers = {b["id"]: b for b in plan["buffers"]}
            dtypes = [buffers[i]["dtype"] for i in plan["inputs"]]
            feeds, cmd = {}, [args.tfuse_run, path, "--save-outputs",
                              os.path.join(work, "out")]
            for line in open(os.path.join(path, "tfuse-args.txt")):
                index, shape, arg = line.rstrip("\n").split("\t")
                shape = [int(s) for s in shape.strip("[]").split(",") if s]
                if arg in inits:
                    a = inits[arg]
                else:
                    vi = next(i for i in m.graph.input if i.name == arg)
                    elem = vi.type.tensor_type.elem_type
                    if elem in (onnx.TensorProto.INT64, onnx.TensorProto.INT32):
                        a = rng.integers(5, VOCAB, size=shape)
                        feeds[arg] = a.astype(np.int64 if elem ==
                                              onnx.TensorProto.INT64
                                              else np.int32)
                    else:
                        a = rng.standard_normal(shape).astype(np.float32)
                        feeds[arg] = a
                a = np.asarray(a)
                want = {"i32": np.int32, "i64": np.int64, "f32": np.float32,
                        "f16": np.float16}[dtypes[int(index)]]
                a = a.astype(want)
                f = os.path.join(work, f"arg{index}.npy")
                np.save(f, a.reshape(shape))
                cmd += ["--input", f"{index}={f}"]
            sess = ort.InferenceSession(model_path,
                                        providers=["CPUExecutionProvider"])
            ref = sess.run(None, feeds)[0].astype(np.float64)
            p = subprocess.run(cmd, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True,
                               timeout=240)
            logf.write(f"== {name}\n{p.stdout[-3000:]}\n")
            if p.returncode:
                raise RuntimeError(f"tfuse-run rc={p.returncode}")
            out = np.load(os.path.join(work, "out", "output_0.npy"))
            out = out.astype(np.float64)
            err = float(np.abs(out - ref).max())
            mx = float(np.abs(ref).max())
            rel = err / mx
            row = [name, f"{err:.3g}", f"{mx:.3g}", f"{rel:.3g}",
                   "PASS" if rel <= 1e-4 else "FAIL", ""]
        except Exception as e:
            logf.write(traceback.format_exc())
            row[5] = f"{type(e).__name__}: {e}"[:200]
        rows.append(row)
    text = "\n".join(f"{r[0]:24} f32   {r[1]:>11} {r[2]:>10} {r[3]:>9} "
                     f"{r[4]} {r[5]}" for r in rows)
    text = (f"{'onnx bundle':24} dtype {'max abs err':>11} {'max |ort|':>10} "
            f"{'rel err':>9} result\n") + text
    open(os.path.join(args.log_dir, "onnx-compare.txt"), "w").write(text + "\n")
    print(text)
    return 0 if rows and all(r[4] == "PASS" for r in rows) else 1


def numpy_eval(graph, env):
    """Evaluates `graph` with numpy: the operators of PyTorch's exports."""
    import math
    from onnx import helper, numpy_helper
    for n in graph.node:
        a = {x.name: helper.get_attribute_value(x) for x in n.attribute}
        i = [env[x] if x else None for x in n.input]
        t = n.op_type
        if t == "Constant":
            r = numpy_helper.to_array(a["value"])
        elif t in ("Identity", "Dropout"):
            r = i[0]
        elif t in ("Add", "Sub", "Mul", "Div"):
            if t == "Div" and i[0].dtype.kind == "i":
                r = np.trunc(i[0] / i[1]).astype(i[0].dtype)
            else:
                f = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply,
                     "Div": np.divide}[t]
                r = f(i[0], i[1]).astype(np.result_type(i[0], i[1]))
        elif t == "Pow":
            r = np.power(i[0], i[1]).astype(i[0].dtype)
        elif t in ("Sqrt", "Neg", "Tanh", "Exp", "Log"):
            r = {"Sqrt": np.sqrt, "Neg": np.negative, "Tanh": np.tanh,
                 "Exp": np.exp, "Log": np.log}[t](i[0])
        elif t == "Reciprocal":
            r = (1 / i[0]).astype(i[0].dtype)
        elif t == "Erf":
            r = np.vectorize(math.erf)(i[0].astype(np.float64))
            r = r.astype(np.float32)
        elif t == "Sigmoid":
            r = 1 / (1 + np.exp(-i[0]))
        elif t == "Relu":
            r = np.maximum(i[0], 0)
        elif t == "MatMul":
            r = np.matmul(i[0], i[1])
        elif t == "Gemm":
            x = i[0].T if a.get("transA", 0) else i[0]
            w = i[1].T if a.get("transB", 0) else i[1]
            r = a.get("alpha", 1.0) * (x @ w)
            if len(i) > 2 and i[2] is not None:
                r = r + a.get("beta", 1.0) * i[2]
        elif t == "LayerNormalization":
            x = i[0].astype(np.float64)
            m = x.mean(-1, keepdims=True)
            v = ((x - m) ** 2).mean(-1, keepdims=True)
            r = (x - m) / np.sqrt(v + a.get("epsilon", 1e-5)) * i[1]
            r = (r + (i[2] if len(i) > 2 else 0)).astype(np.float32)
        elif t == "Softmax":
            ax = a.get("axis", -1)
            e = np.exp(i[0] - i[0].max(axis=ax, keepdims=True))
            r = e / e.sum(axis=ax, keepdims=True)
        elif t == "Reshape":
            shape = [int(d) for d in i[1]]
            if not a.get("allowzero", 0):
                shape = [i[0].shape[k] if d == 0 else d
                         for k, d in enumerate(shape)]
            r = i[0].reshape(shape)
        elif t == "Transpose":
            r = np.transpose(i[0], a.get("perm"))
        elif t == "Split":
            ax = a.get("axis", 0)
            if len(i) > 1 and i[1] is not None:
                r = np.split(i[0], np.cumsum(i[1])[:-1], axis=ax)
            else:
                r = np.split(i[0], len(n.output), axis=ax)
        elif t == "Slice":
            box = [slice(None)] * i[0].ndim
            axes = i[3] if len(i) > 3 else range(len(i[1]))
            steps = i[4] if len(i) > 4 else [1] * len(i[1])
            for b, e, ax, st in zip(i[1], i[2], axes, steps):
                box[int(ax)] = slice(int(b), int(e), int(st))
            r = i[0][tuple(box)]
        elif t == "Unsqueeze":
            r = np.expand_dims(i[0], tuple(int(v) for v in i[1]))
        elif t == "Squeeze":
            r = np.squeeze(i[0], tuple(int(v) for v in i[1]))
        elif t == "Concat":
            r = np.concatenate(i, axis=a["axis"])
        elif t in ("ReduceMean", "ReduceSum", "ReduceMax"):
            f = {"ReduceMean": np.mean, "ReduceSum": np.sum,
                 "ReduceMax": np.max}[t]
            axes = tuple(int(v) for v in (i[1] if len(i) > 1
                                          else a["axes"]))
            r = f(i[0], axis=axes, keepdims=bool(a.get("keepdims", 1)))
        elif t == "Gather":
            r = np.take(i[0], i[1], axis=a.get("axis", 0))
        elif t == "GatherElements":
            r = np.take_along_axis(i[0], i[1], axis=a.get("axis", 0))
        elif t == "Expand":
            r = i[0] * np.ones([int(v) for v in i[1]], dtype=i[0].dtype)
        elif t == "ConstantOfShape":
            v = (numpy_helper.to_array(a["value"]) if "value" in a
                 else np.zeros(1, np.float32))
            r = np.full([int(d) for d in i[0]], v.ravel()[0], dtype=v.dtype)
        elif t == "Shape":
            r = np.array(i[0].shape, np.int64)
        elif t == "Range":
            r = np.arange(i[0], i[1], i[2]).astype(i[0].dtype)
        elif t == "Cast":
            r = i[0].astype(helper.tensor_dtype_to_np_dtype(a["to"])
                            if hasattr(helper, "tensor_dtype_to_np_dtype")
                            else onnx_np_type(a["to"]))
        elif t in ("Equal", "Less", "LessOrEqual", "Greater",
                   "GreaterOrEqual", "And", "Or"):
            r = {"Equal": np.equal, "Less": np.less,
                 "LessOrEqual": np.less_equal, "Greater": np.greater,
                 "GreaterOrEqual": np.greater_equal, "And": np.logical_and,
                 "Or": np.logical_or}[t](i[0], i[1])
        elif t == "Not":
            r = np.logical_not(i[0])
        elif t == "Where":
            r = np.where(i[0], i[1], i[2])
        else:
            raise RuntimeError(f"no numpy evaluation of {t}")
        for name, v in zip(n.output, r if isinstance(r, list) else [r]):
            env[name] = np.asarray(v)
    return env


def onnx_np_type(to):
    from onnx import mapping
    return mapping.TENSOR_TYPE_TO_NP_TYPE[to]


def local(args):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    bindir = args.bindir or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin")
    work = os.path.join(args.work_dir, "onnx-local")
    os.makedirs(work, exist_ok=True)
    failed = 0
    for path in args.files:
        name = os.path.basename(path)
        try:
            m = onnx.load(path)
            g = m.graph
            rng = np.random.RandomState(7)
            feeds = {}
            for vi in g.input:
                shape = [d.dim_value for d in vi.type.tensor_type.shape.dim]
                if vi.type.tensor_type.elem_type in (TensorProto.INT64,
                                                     TensorProto.INT32):
                    feeds[vi.name] = rng.randint(5, 32, size=shape)
                else:
                    feeds[vi.name] = rng.standard_normal(shape).astype(
                        np.float32)
            env = {t.name: numpy_helper.to_array(t) for t in g.initializer}
            env.update(feeds)
            ref = numpy_eval(g, env)[g.output[0].name].astype(np.float64)
            # The same graph with everything written in as constants.
            floats = [k for k, v in feeds.items() if v.dtype == np.float32]
            nodes = [helper.make_node("Constant", [], [t.name], value=t)
                     for t in g.initializer]
            for k, v in feeds.items():
                nodes.append(helper.make_node(
                    "Constant", [], [k + ("__c" if k in floats else "")],
                    value=numpy_helper.from_array(v.astype(
                        np.int64 if v.dtype.kind == "i" else np.float32),
                        k)))
            nodes.append(helper.make_node(
                "Constant", [], ["zero__"],
                value=numpy_helper.from_array(np.zeros([], np.float32),
                                              "zero__")))
            nodes.append(helper.make_node("Mul", ["z__", "zero__"], ["zz__"]))
            for k in floats:
                nodes.append(helper.make_node("Add", [k + "__c", "zz__"],
                                              [k]))
            joined = bool(floats)
            for n in g.node:
                copy = onnx.NodeProto()
                copy.CopyFrom(n)
                nodes.append(copy)
                # Without a float input: z joins the first lookup of the ids.
                if not joined and n.op_type == "Gather" and \
                        n.input[1] not in env:
                    out = copy.output[0]
                    copy.output[0] = out + "__raw"
                    nodes.append(helper.make_node("Add", [out + "__raw",
                                                          "zz__"], [out]))
                    joined = True
            graph = helper.make_graph(
                nodes, g.name,
                [helper.make_tensor_value_info("z__", TensorProto.FLOAT,
                                               [1])],
                list(g.output))
            m2 = helper.make_model(graph, opset_imports=m.opset_import)
            src = os.path.join(work, name)
            onnx.save(m2, src)
            subprocess.run([os.path.join(bindir, "tfuse-import"), "--onnx",
                            src, "-o", src + ".mlir"], check=True)
            out = subprocess.run(
                [os.path.join(bindir, "tfuse-opt"), src + ".mlir",
                 "--tfuse-evaluate=seed=1", "-o", os.devnull], check=True,
                capture_output=True, text=True).stdout
            line = out.splitlines()[0]
            digest = dict(f.split("=") for f in line.split()
                          if f.startswith(("sum=", "max_abs=")))
            got = (float(digest["sum"]), float(digest["max_abs"]))
            want = (float(ref.sum()), float(np.abs(ref).max()))
            scale = max(abs(want[0]), want[1])
            ok = all(abs(x - y) <= 1e-4 * scale for x, y in zip(got, want))
            failed += not ok
            print(f"{name:32} sum {got[0]:.6e} vs {want[0]:.6e}, max "
                  f"{got[1]:.6e} vs {want[1]:.6e}: "
                  f"{'PASS' if ok else 'FAIL'}", flush=True)
        except Exception as e:
            failed += 1
            print(f"{name:32} ERROR {type(e).__name__}: {e}"[:300],
                  flush=True)
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    e = sub.add_parser("export")
    e.add_argument("--out-dir", required=True)
    c = sub.add_parser("compare")
    c.add_argument("--bundles", required=True)
    c.add_argument("--tfuse-run", required=True)
    c.add_argument("--log-dir", default=os.environ.get("OUT", "/tmp"))
    lo = sub.add_parser("local")
    lo.add_argument("files", nargs="+")
    lo.add_argument("--work-dir", default="/tmp")
    lo.add_argument("--bindir", default="",
                    help="tfuse-import and tfuse-opt (default ../build/bin)")
    args = ap.parse_args()
    t0 = time.time()
    rc = {"export": export, "compare": compare, "local": local}[args.mode](
        args)
    print(f"{args.mode}: {time.time() - t0:.1f} s, rc {rc}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
