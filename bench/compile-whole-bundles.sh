#!/usr/bin/env bash
# Compiles, on this machine, whole-model training steps for
# bench/device-whole.sh (carry: ["bundles"]), into bundles/whole:
#   bert-large.b32s512.adamw.{fused,unfused}: BERT-Large, batch 32,
#     sequence 512, from token ids to the logits, the mean cross-entropy
#     against i32 labels, the backward and the AdamW update (tfuse-opt --tfuse-autodiff
#     then --tfuse-apply-optimizer, as bench/compile-train-bundles.sh does
#     for the layers; one multi_tensor kernel over every parameter);
#   with WHOLE_NOOPT=1, bert-large.b32s512.bf16.fused: the same step without
#     the optimizer (tfuse-compile --train, the bundle timed before; 23 MB
#     more to carry: the default set is 59 MiB with the tables trained, near the 64 MiB carry);
#   check.bert-small.adamw.{fused,unfused}: the same graph from a shrunk
#     config (2 layers, hidden 128, 2 heads, MLP 512, vocabulary 512, batch
#     2, sequence 64), checked step by step against the CPU reference.
# Mixed precision as torch.autocast: the parameters are f32 master weights
# (the optimizer updates f32 only), cast to bf16 at the top of the forward;
# activations and GEMMs are bf16. The LM head is untied; the attention
# mask gets no gradient, and AdamW updates every parameter: the word and
# token-type tables too (f32 master weights like the rest; their gradients
# # are tfuse.gather_grad, a scatter-add of the rows the token ids pick). Loss:
# tfuse.cross_entropy over the logits (labels are an input: tfuse-run draws
# them in [0, 1024), all counted; the peer's MLM labels count 15 % of the
# rows, which changes no byte the loss kernels move). A bundle's inputs.args holds the `--input i=x.npy`
# arguments of tfuse-run (paths relative to the bundle, into the shared
# inputs.<model>/ beside it): lr 1e-4 and step 3, and for the check bundles
# the second moments (exp_avg_sq must be non-negative).
# The compile summaries (predicted time and peak memory) go to
# summary.<bundle>.txt. TFUSE_BENCH_TARGET (default h200; h100-sxm for an
# H100) is the target priced. WHOLE_GPT=1 adds GPT-3 1.3B b8 s2048 (fused,
# no optimizer): tfuse-predict gives its step 100.8 GB (fits the H200's 141,
# not an H100's 80), so it is not in the default set.
set -euo pipefail
# WHOLE_ATTENTION=decomposed differentiates and runs attention through GEMMs
# and a softmax; the default is the flash forward and backward kernels.
flash=true attention=--fused-attention
[ "${WHOLE_ATTENTION:-flash}" = decomposed ] && flash=false attention=
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin="$root/build/bin"
out="$root/bundles/whole"
target=${TFUSE_BENCH_TARGET:-h200}
rm -rf "$out" && mkdir -p "$out/src"
src="$out/src"
python3 - "$root" "$src" <<'PY'
import json, sys
root, src = sys.argv[1], sys.argv[2]
bert = json.load(open(root + "/test/tools/tfuse-import/Inputs/bert-large-uncased.json"))
bert["tie_word_embeddings"] = False
json.dump(bert, open(src + "/bert.json", "w"))
small = dict(bert, num_hidden_layers=2, hidden_size=128, num_attention_heads=2,
             intermediate_size=512, vocab_size=512, max_position_embeddings=64)
json.dump(small, open(src + "/bert-small.json", "w"))
gpt = {"model_type": "gpt2", "n_layer": 24, "n_embd": 2048, "n_head": 16,
       "n_positions": 2048, "vocab_size": 50257, "activation_function": "gelu_new",
       "layer_norm_epsilon": 1e-5, "attn_pdrop": 0.1, "resid_pdrop": 0.1,
       "embd_pdrop": 0.1, "tie_word_embeddings": False}
json.dump(gpt, open(src + "/gpt3-1.3b.json", "w"))
PY

# f32 master weights: every bf16 argument of @forward but those listed
# becomes f32 and is cast to bf16 once at the top of the body.
master_weights() { # in.mlir out.mlir keep-indices
  python3 - "$@" <<'PY'
import re, sys
src, dst, keep = sys.argv[1], sys.argv[2], {int(i) for i in sys.argv[3].split(",")}
text = open(src).read()
head, sep, rest = text.partition("func.func @forward(")
sig, sep2, body = rest.partition(") -> ")
ret, brace, ops = body.partition("{\n")
if not sep or not sep2 or not brace:
    sys.exit(f"{src}: no func.func @forward(...) -> ... {{ to rewrite")
args = re.split(r", (?=%arg\d+:)", sig)
casts, renamed = [], []
for i, a in enumerate(args):
    m = re.match(r"%arg(\d+): tensor<([0-9x]+)xbf16>(.*)$", a, re.S)
    if not m or int(m.group(1)) in keep:
        continue
    n, shape, attrs = m.groups()
    args[i] = f"%arg{n}: tensor<{shape}xf32>{attrs}"
    casts.append(f"    %w{n} = tfuse.cast %arg{n} : tensor<{shape}xf32> to tensor<{shape}xbf16>\n")
    renamed.append(n)
for n in renamed:
    ops = re.sub(rf"%arg{n}\b", f"%w{n}", ops)
open(dst, "w").write(head + sep + ", ".join(args) + sep2 + ret + brace + "".join(casts) + ops)
print(f"{dst}: {len(renamed)} f32 master weights", file=sys.stderr)
PY
}

# The AdamW step's inputs, their indices read from the step's
# tfuse.optimizer attribute: lr 1e-4 and step 3 (scalars), and with `full`
# every exp_avg_sq non-negative (squares of uniform [0, 0.01)); exp_avg
# stays tfuse-run's random [-1, 1).
optimizer_inputs() { # step.mlir inputs-dir full|scalars bundle...
  python3 - "$@" <<'PY'
import os, random, re, struct, sys
mlir, inputs, mode, bundles = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
text = open(mlir).read()
attr = re.search(r"tfuse\.optimizer = \{([^}]*)\}", text)
if not attr:
    sys.exit(f"{mlir}: no tfuse.optimizer attribute")
def field(name):
    return int(re.search(rf"\b{name} = (\d+)", attr.group(1)).group(1))
params = [int(p) for p in re.search(r"params = array<i64: ([0-9, ]+)>", attr.group(1)).group(1).split(",")]
state, lr, step = field("state"), field("lr"), field("step")
sig = re.search(r"func\.func @forward_train\((.*?)\) -> ", text, re.S).group(1)
shapes = {int(n): [int(d) for d in s.split("x") if d] for n, s in
          re.findall(r"%arg(\d+): tensor<((?:\d+x)*)f32>", sig)}
def npy(path, shape, values):
    dims = "(%s)" % "".join("%d," % d for d in shape) if shape else "()"
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % dims
    header += " " * ((64 - (11 + len(header)) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%df" % len(values), *values))
os.makedirs(inputs, exist_ok=True)
args = []
def add(index, shape, values):
    name = f"{os.path.basename(inputs)}/arg{index}.npy"
    npy(os.path.join(inputs, f"arg{index}.npy"), shape, values)
    args.append(f"--input {index}=../{name}")
add(lr, [], [1e-4])
add(step, [], [3.0])
if mode == "full":
    rng = random.Random(1)
    for k, p in enumerate(params):
        shape = [d for d in shapes[state + 2 * k]]
        count = 1
        for d in shape:
            count *= d
        add(state + 2 * k + 1, shape, [rng.uniform(0, 1e-2) ** 2 for _ in range(count)])
import json
for bundle in bundles:
    # tfuse-run's --input N is the plan's N-th input: the step's arguments.
    plan = json.load(open(bundle + "/plan.json"))
    buffers = {b["id"]: b for b in plan["buffers"]}
    for arg in args:
        index = int(arg.split()[1].split("=")[0])
        want = shapes.get(index, [])
        got = buffers[plan["inputs"][index]]["shape"]
        if got != want:
            sys.exit(f"{bundle}: input {index} is {got} in the plan, {want} in {mlir}")
    open(bundle + "/inputs.args", "w").write("\n".join(args) + "\n")
print(f"{inputs}: {len(args)} inputs ({len(params)} parameters)", file=sys.stderr)
PY
}

compile() { # name input.mlir [flags...]: bundle and its summary
  local name=$1 mlir=$2
  shift 2
  "$bin/tfuse-compile" "$mlir" $attention \
    --target="$target" -o "$out/$name" "$@" >"$out/summary.$name.txt"
  rm -f "$out/$name/report.json"
}

# BERT: 0 input_ids, 1 token_type_ids, 2 attention_mask (no gradient, kept
# bf16), 3 word and 4 token-type tables (trained).
"$bin/tfuse-import" --hf-config "$src/bert.json" --batch 32 --seq 512 --dtype bf16 \
  --embeddings --lm-head --logits -o "$src/bert.mlir"
"$bin/tfuse-import" --hf-config "$src/bert-small.json" --batch 2 --seq 64 --dtype bf16 \
  --embeddings --lm-head --logits -o "$src/bert-small.mlir"
for model in bert bert-small; do
  master_weights "$src/$model.mlir" "$src/$model.f32w.mlir" 2
  "$bin/tfuse-opt" "$src/$model.f32w.mlir" \
    --tfuse-autodiff="loss=cross-entropy no-grad=2 fused-attention=$flash" \
    --tfuse-apply-optimizer="function=forward_train" -o "$src/$model.adamw.mlir"
done
for fuse in fused unfused; do
  flag=""; [ $fuse = unfused ] && flag=--no-fuse
  compile check.bert-small.adamw.$fuse "$src/bert-small.adamw.mlir" --function=forward_train $flag
  compile bert-large.b32s512.adamw.$fuse "$src/bert.adamw.mlir" --function=forward_train $flag
done
optimizer_inputs "$src/bert-small.adamw.mlir" "$out/inputs.bert-small" full \
  "$out"/check.bert-small.adamw.*
optimizer_inputs "$src/bert.adamw.mlir" "$out/inputs.bert-large" scalars \
  "$out"/bert-large.b32s512.adamw.*
if [ "${WHOLE_NOOPT:-0}" = 1 ]; then
  compile bert-large.b32s512.bf16.fused "$src/bert.mlir" --train --loss=cross-entropy --no-grad=2
fi
if [ "${WHOLE_GPT:-0}" = 1 ]; then
  "$bin/tfuse-import" --hf-config "$src/gpt3-1.3b.json" --batch 8 --seq 2048 --dtype bf16 \
    --embeddings --lm-head --logits -o "$src/gpt.mlir"
  # 1 is the word table (wte), trained like every other parameter.
  compile gpt3-1.3b.b8s2048.bf16.fused "$src/gpt.mlir" --train --loss=cross-entropy
fi
# The peer (bench/whole_peers.py) builds BertForMaskedLM from the same config.
cp "$src/bert.json" "$out/bert.json"
rm -rf "$src"
du -sh "$out"/*
du -sh "$out"
