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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    e = sub.add_parser("export")
    e.add_argument("--out-dir", required=True)
    c = sub.add_parser("compare")
    c.add_argument("--bundles", required=True)
    c.add_argument("--tfuse-run", required=True)
    c.add_argument("--log-dir", default=os.environ.get("OUT", "/tmp"))
    args = ap.parse_args()
    t0 = time.time()
    rc = export(args) if args.mode == "export" else compare(args)
    print(f"{args.mode}: {time.time() - t0:.1f} s, rc {rc}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
