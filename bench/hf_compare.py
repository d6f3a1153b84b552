#!/usr/bin/env python3
"""Checks tfuse bundles against the Hugging Face classes (GPU machine side).

For every bundle of bundles/models (made by bench/compile-models-bundles.sh,
each with hf-config.json, tfuse-args.txt and hf-compare.json beside its
plan), this builds the transformers model class of the same config with
num_hidden_layers = --layers, random init (torch.manual_seed), eval mode,
saves it with save_pretrained (safetensors) and turns that checkpoint into
the bundle's weights with scripts/checkpoint-to-npy.py, the converter users
run (tfuse-run --inputs); a weight the converter does not write (transformers
5 renamed ViT's modules) is taken from the state dict by the mapping below
(tfuse.name -> state-dict key, transposed where tfuse stores [in, out]), and
the row's `weights` column says how many came through the converter. It
runs the bundle with tfuse-run --inputs ... --input ... --save-outputs and compares the
output with softmax(logits) of the HF model (a graph imported with --lm-head
ends with the head's softmax) or, for the <config>-logits-<dtype> bundles
(--lm-head --logits), with the logits themselves, computed in float64 on the
GPU (float32 if float64 fails). One HF model serves all four bundles of a
config.

The HF classes: bert -> BertForMaskedLM and roberta -> RobertaForMaskedLM
(tfuse's head is the MLM head: transform dense, activation, LayerNorm, tied
decoder plus bias), vit -> ViTModel (with its pooler; the <config>-pooler
bundles are compared with pooler_output, the others with last_hidden_state;
the input is one batch of random pixel_values, unfolded into the bundle's
pixel_patches as the Conv2d patch embedding reads them, and the Conv2d
weight [hidden, C, P, P] is saved as [C*P*P, hidden]), the others
AutoModelForCausalLM (GPT2LMHeadModel, LlamaForCausalLM, PhiForCausalLM,
...). Attention is "eager" (sliding windows by transformers'
masks). Parameters that HF initialises to a constant (LayerNorm weights and
biases, linear biases, Gemma's zero norm weights) get random noise added, so
that a swapped or missing bias or gain cannot pass.

Pass: max |tfuse - ref| <= tol * max |ref| with tol 1e-4 (f32) or 2e-2
(bf16; weights rounded to bf16 from the same f32 model). For bf16 the table
also gives the HF class's own error in bf16 (the model cast to bf16, same
inputs, same measure: column "HF bf16"), and a bf16 bundle passes when its
error is within 2 % or no larger than that. Each bundle group is
in its own try/except, tracebacks go to the log, and the table is always
printed last.

  /opt/torch/.venv/bin/python3 bench/hf_compare.py --tfuse-run PATH \
      [--bundles bundles/models] [--log-dir DIR] [--only NAME,...] \
      [--deadline EPOCH_SECONDS]
"""

import argparse
import copy
import json
import os
import shutil
import subprocess
import sys
import time
import traceback

import numpy as np

TOLERANCE = {"f32": 1e-4, "bf16": 2e-2}
MASK_VALUE = -1e9  # the additive mask of padded keys (exp underflows to 0)


def log(msg, stream=None):
    print(msg, flush=True)
    if stream:
        stream.write(msg + "\n")
        stream.flush()


# --------------------------------------------------------------------------
# tfuse.name -> (HF state-dict key, transpose?)
# --------------------------------------------------------------------------

EMBEDDING_TABLES = ("embeddings.word_embeddings.weight",
                    "embeddings.position_embeddings.weight",
                    "embeddings.token_type_embeddings.weight",
                    "wte.weight", "wpe.weight", "embed_tokens.weight")


def map_bert(name):
    # BertForMaskedLM: encoder under "bert.", the MLM head under "cls.".
    key = name if name.startswith("cls.") else "bert." + name
    return key, _is_linear(name)


def map_roberta(name):
    key = name if name.startswith("lm_head.") else "roberta." + name
    return key, _is_linear(name)


def map_gpt2(name):
    # GPT-2's Conv1D already stores [in, out]: nothing is transposed.
    key = name if name.startswith("lm_head.") else "transformer." + name
    return key, name == "lm_head.weight"


def map_decoder(name):
    # LlamaForCausalLM and its relatives: the body under "model.", lm_head
    # (nn.Linear [vocab, hidden]) stored [hidden, vocab] by tfuse. phi3's
    # qkv_proj / gate_up_proj are nn.Linear too: rows q|k|v and gate|up,
    # which tfuse splits along the last axis after the transpose.
    key = name if name.startswith("lm_head.") else "model." + name
    return key, _is_linear(name) or name == "lm_head.weight"


def resolve_key(key, sd):
    """The state-dict key, preferring the decoder's own bias for the MLM
    heads' `predictions.bias` / `lm_head.bias` (the one forward adds)."""
    if key.endswith(("predictions.bias", "lm_head.bias")):
        decoder = key[:-len("bias")] + "decoder.bias"
        if decoder in sd:
            return decoder
    if key not in sd:
        raise KeyError(f"no state-dict key {key}")
    return key


def linear_module(model, key, tensor):
    """Whether `key` is the weight of an nn.Linear ([out, in], which tfuse
    stores transposed); Embedding tables and GPT-2's Conv1D are not."""
    import torch
    if tensor.dim() != 2 or not key.endswith(".weight"):
        return False
    try:
        module = model.get_submodule(key[:-len(".weight")])
    except AttributeError:
        return False
    return isinstance(module, torch.nn.Linear)


def _is_linear(name):
    return name.endswith(".weight") and not name.endswith(EMBEDDING_TABLES) \
        and "norm" not in name.lower() and not name.startswith("lm_head.w")


# transformers 5 renamed ViT's modules (checkpoints keep the 4.x names that
# tfuse gives its arguments, and transformers converts them when loading).
VIT_V5_NAMES = [(".attention.attention.query.", ".attention.q_proj."),
                (".attention.attention.key.", ".attention.k_proj."),
                (".attention.attention.value.", ".attention.v_proj."),
                (".attention.output.dense.", ".attention.o_proj."),
                (".intermediate.dense.", ".mlp.fc1."),
                (".output.dense.", ".mlp.fc2.")]


def map_vit(name):
    # ViTModel: no prefix; the query/key/value/dense/pooler weights are
    # nn.Linear, cls_token and position_embeddings are stored as they are,
    # the patch projection (a Conv2d) is reshaped in run_group.
    linear = name.endswith(".weight") and "layernorm" not in name \
        and name != PATCH_PROJECTION
    import transformers
    if int(transformers.__version__.split(".")[0]) >= 5 and \
            name.startswith("encoder.layer."):
        name = "layers." + name[len("encoder.layer."):]
        for old, new in VIT_V5_NAMES:
            name = name.replace(old, new)
    return name, linear


PATCH_PROJECTION = "embeddings.patch_embeddings.projection.weight"

MAPPERS = {"bert": map_bert, "roberta": map_roberta, "gpt2": map_gpt2,
           "llama": map_decoder, "mistral": map_decoder,
           "qwen2": map_decoder, "phi": map_decoder, "phi3": map_decoder,
           "gemma": map_decoder, "vit": map_vit}

INPUTS = ("input_ids", "token_type_ids", "attention_mask")
CONVERTER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "scripts", "checkpoint-to-npy.py")


# --------------------------------------------------------------------------
# Bundles
# --------------------------------------------------------------------------

def read_bundle(path):
    meta = json.load(open(os.path.join(path, "hf-compare.json")))
    config = json.load(open(os.path.join(path, "hf-config.json")))
    args = []
    for line in open(os.path.join(path, "tfuse-args.txt")):
        index, shape, name = line.rstrip("\n").split("\t")
        args.append((int(index), json.loads(shape), name))
    plan = json.load(open(os.path.join(path, "plan.json")))
    return meta, config, args, plan


def plan_constants(plan):
    return [b for b in plan["buffers"] if b.get("kind") == "constant"]


def save_bf16(path, array_f32):
    """bf16 as raw <u2 bits, rounded to nearest even (what torch does)."""
    import torch
    t = torch.from_numpy(np.ascontiguousarray(array_f32, dtype=np.float32))
    bits = t.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    np.save(path, bits)


def load_output(path, dtype):
    a = np.load(path)
    if dtype == "bf16":
        a = (a.astype(np.uint32) << 16).view(np.float32)
    return a.astype(np.float64)


# --------------------------------------------------------------------------
# The Hugging Face side
# --------------------------------------------------------------------------

def build_hf(config_dict, layers, note):
    import torch
    import transformers
    d = dict(config_dict)
    model_type = d["model_type"]
    if model_type == "gpt2":
        d["n_layer"] = layers
    else:
        d["num_hidden_layers"] = layers
    for key in ("_name_or_path", "architectures", "transformers_version",
                "torch_dtype"):
        d.pop(key, None)
    config = transformers.AutoConfig.for_model(**d)
    config._attn_implementation = "eager"
    note.write(f"config: {config}\n")
    if model_type == "vit":
        # ViTModel with its pooler (add_pooling_layer=True, the default).
        def make():
            return transformers.ViTModel(config, add_pooling_layer=True)
    else:
        auto = (transformers.AutoModelForMaskedLM
                if model_type in ("bert", "roberta")
                else transformers.AutoModelForCausalLM)

        def make():
            return auto.from_config(config, attn_implementation="eager")
    torch.manual_seed(0)
    try:
        with torch.device("cuda"):
            model = make()
    except Exception:  # some versions refuse the device context
        note.write("init under torch.device('cuda') failed; on the CPU:\n"
                   + traceback.format_exc())
        model = make().cuda()
    model.float().eval()
    # Constant parameters (norm gains/biases, linear biases) get noise.
    gen = torch.Generator(device="cuda").manual_seed(1)
    with torch.no_grad():
        for pname, p in model.named_parameters():
            if p.numel() > 1 and bool((p == p.flatten()[0]).all()):
                scale = 0.1 if "norm" in pname.lower() or ".ln_" in pname \
                    else 0.02
                p.add_(scale * torch.randn(p.shape, generator=gen,
                                           device=p.device, dtype=p.dtype))
    note.write(f"model class: {type(model).__name__}\n")
    return model


def make_pixels(config_dict, batch):
    """Random pixel_values [B, C, I, I] and the same values unfolded into
    pixel_patches [B, N, C*P*P]: patch r*(I/P)+s holds, at (c*P + i)*P + j,
    pixel [c, r*P + i, s*P + j] (the order of the Conv2d weight [hidden, C,
    P, P] reshaped to [hidden, C*P*P]; patches in the order of
    flatten(2).transpose(1, 2))."""
    import torch
    g = torch.Generator().manual_seed(2)
    c = config_dict.get("num_channels", 3)
    size, p = config_dict["image_size"], config_dict["patch_size"]
    pixels = torch.randn(batch, c, size, size, generator=g)
    side = size // p
    patches = pixels.reshape(batch, c, side, p, side, p) \
        .permute(0, 2, 4, 1, 3, 5).reshape(batch, side * side, c * p * p)
    return pixels, patches


def vit_outputs(out):
    return {"hidden": out.last_hidden_state.double().cpu().numpy(),
            "pooler": out.pooler_output.double().cpu().numpy()}


def vit_reference(model, pixels, note):
    """ViTModel's outputs in float64 (float32 if float64 fails)."""
    import torch
    for dtype in (torch.float64, torch.float32):
        try:
            with torch.no_grad():
                out = vit_outputs(model.to(dtype)(
                    pixel_values=pixels.cuda().to(dtype)))
            model.to(torch.float32)
            note.write(f"reference computed in {dtype}\n")
            return out, str(dtype).replace("torch.", "")
        except Exception:
            note.write(f"reference in {dtype} failed:\n"
                       + traceback.format_exc())
            model.to(torch.float32)
    raise RuntimeError("the HF reference failed in float64 and float32")


def vit_bf16_error(model, pixels, ref, note):
    import torch
    try:
        with torch.no_grad():
            out = vit_outputs(copy.deepcopy(model).to(torch.bfloat16)(
                pixel_values=pixels.cuda().to(torch.bfloat16)))
        return {head: float(np.abs(o - ref[head]).max() /
                            np.abs(ref[head]).max())
                for head, o in out.items()}
    except Exception:
        note.write("the HF model in bf16 failed:\n" + traceback.format_exc())
        return None


def make_inputs(config_dict, batch, seq, has_mask):
    import torch
    g = torch.Generator().manual_seed(2)
    vocab = config_dict["vocab_size"]
    ids = torch.randint(5, vocab, (batch, seq), generator=g)
    pad = config_dict.get("pad_token_id")
    if pad is not None:
        ids[ids == pad] = pad + 1 if pad + 1 < vocab else pad - 1
    types = torch.randint(0, max(1, config_dict.get("type_vocab_size", 1)),
                          (batch, seq), generator=g)
    mask = torch.ones(batch, seq, dtype=torch.long)
    if has_mask and seq > 8:
        mask[-1, -(seq // 4):] = 0  # the last sequence padded at its end
    return ids, types, mask


def hf_reference(model, model_type, ids, types, mask, has_types, has_mask,
                 note):
    """{"softmax": softmax(logits), "logits": logits} in float64 (the model
    run in float32 if the float64 run fails)."""
    import torch
    kwargs = {"input_ids": ids.cuda()}
    if has_types:
        kwargs["token_type_ids"] = types.cuda()
    if has_mask:
        kwargs["attention_mask"] = mask.cuda()
    for dtype in (torch.float64, torch.float32):
        try:
            ref_model = model.to(dtype)
            with torch.no_grad():
                logits = ref_model(**kwargs).logits
            outputs = head_outputs(logits)
            model.to(torch.float32)
            note.write(f"reference computed in {dtype}\n")
            return outputs, str(dtype).replace("torch.", "")
        except Exception:
            note.write(f"reference in {dtype} failed:\n"
                       + traceback.format_exc())
            model.to(torch.float32)
    raise RuntimeError("the HF reference failed in float64 and float32")


def head_outputs(logits):
    """What a bundle may end with, in float64 on the host: the head's
    softmax (--lm-head) or the logits themselves (--lm-head --logits)."""
    import torch
    logits = logits.double()
    return {"softmax": torch.softmax(logits, dim=-1).cpu().numpy(),
            "logits": logits.cpu().numpy()}


def hf_bf16_error(model, ids, types, mask, has_types, has_mask, ref, note):
    """The class's own bf16 error per head output: max |output of the model
    cast to bf16 - ref| / max |ref|, the same measure as tfuse's (its weights
    are rounded to bf16 from the same f32 model, as the bundle's are)."""
    import torch
    kwargs = {"input_ids": ids.cuda()}
    if has_types:
        kwargs["token_type_ids"] = types.cuda()
    if has_mask:
        kwargs["attention_mask"] = mask.cuda()
    try:
        with torch.no_grad():
            # A copy: casting the model itself would round its f32 weights.
            logits = copy.deepcopy(model).to(torch.bfloat16)(**kwargs).logits
        return {head: float(np.abs(out - ref[head]).max() /
                            np.abs(ref[head]).max())
                for head, out in head_outputs(logits).items()}
    except Exception:
        note.write("the HF model in bf16 failed:\n" + traceback.format_exc())
        return None


def rope_diagnostic(model, plan, note):
    """Max relative difference of HF's inv_freq and the bundle's constant."""
    inv = None
    for _, module in model.named_modules():
        if hasattr(module, "inv_freq") and module.inv_freq is not None:
            inv = module.inv_freq.detach().float().cpu().numpy()
            note.write(f"HF attention_scaling "
                       f"{getattr(module, 'attention_scaling', None)}\n")
            break
    if inv is None:
        return None
    for b in plan_constants(plan):
        if b["shape"] == [inv.size] and b["dtype"] == "f32":
            mine = np.array([float(v) for v in b["values"]], dtype=np.float64)
            d = np.abs(mine - inv).max() / np.abs(inv).max()
            note.write(f"rope inv_freq: max rel diff tfuse vs HF {d:.3g}\n")
            return d
    note.write("rope: no f32 constant of the inv_freq shape in the plan\n")
    return None


# --------------------------------------------------------------------------
# One group of bundles (one config, f32 and bf16)
# --------------------------------------------------------------------------

def run_group(family, bundles, args, rows, note):
    import torch
    meta0, config, _, _ = read_bundle(bundles[0])
    model_type = config["model_type"]
    mapper = MAPPERS[model_type]
    model = build_hf(config, meta0["layers"], note)
    sd = {k: v for k, v in model.state_dict().items()}
    vit = model_type == "vit"
    out_emb, in_emb = model.get_output_embeddings(), model.get_input_embeddings()
    hf_tied = not vit and out_emb is not None and \
        out_emb.weight.data_ptr() == in_emb.weight.data_ptr()
    note.write(f"HF head tied to the input embeddings: {hf_tied}\n")
    work = os.path.join(args.work, family)
    checkpoint = os.path.join(args.work, family + "-checkpoint")
    shutil.rmtree(checkpoint, ignore_errors=True)
    model.save_pretrained(checkpoint, safe_serialization=True)
    cached = {}
    for path in bundles:
        name = os.path.basename(path)
        meta, _, targs, plan = read_bundle(path)
        dtype = meta["dtype"]
        row = {"bundle": name, "family": family, "dtype": dtype}
        rows.append(row)
        try:
            if args.deadline and time.time() > args.deadline:
                row.update(status="SKIP", reason="out of time")
                continue
            if "--lm-head" not in meta["flags"] and not (
                    vit and "--embeddings" in meta["flags"]):
                raise RuntimeError("only --lm-head graphs (vit: "
                                   "--embeddings) are compared")
            names = [n for _, _, n in targs]
            has_types = "token_type_ids" in names
            has_mask = "attention_mask" in names
            if vit:
                pixels, patches = make_pixels(config, meta["batch"])
            else:
                ids, types, mask = make_inputs(config, meta["batch"],
                                               meta["seq"], has_mask)
            shutil.rmtree(work, ignore_errors=True)
            os.makedirs(os.path.join(work, "out"))
            converted = os.path.join(work, "in")
            conv = subprocess.run(
                [sys.executable, CONVERTER, path, checkpoint, converted],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            note.write(f"$ checkpoint-to-npy.py {name} (rc={conv.returncode})"
                       f"\n{conv.stdout[-3000:]}\n")
            if conv.returncode != 0:
                shutil.rmtree(converted, ignore_errors=True)
                os.makedirs(converted)
            cmd = [args.tfuse_run, path, "--inputs", converted,
                   "--save-outputs", os.path.join(work, "out")]
            by_converter = mapped = 0
            for index, shape, tname in targs:
                f = os.path.join(work, f"arg{index}.npy")
                weight = tname not in INPUTS and tname != "pixel_patches"
                if weight and os.path.exists(os.path.join(converted,
                                                          tname + ".npy")):
                    by_converter += 1
                    continue
                mapped += weight
                if tname == "pixel_patches":
                    a = patches.numpy().astype(np.float32)
                    if list(a.shape) != shape:
                        raise ValueError(f"pixel_patches: shape {list(a.shape)}"
                                         f", the bundle wants {shape}")
                    if dtype == "bf16":
                        save_bf16(f, a)
                    else:
                        np.save(f, a)
                elif tname == "input_ids":
                    np.save(f, ids.numpy().astype(np.int32))
                elif tname == "token_type_ids":
                    np.save(f, types.numpy().astype(np.int32))
                else:
                    if tname == "attention_mask":
                        a = ((1 - mask.numpy()) * MASK_VALUE).astype(
                            np.float32).reshape(shape)
                    elif tname == PATCH_PROJECTION:
                        # Conv2d [hidden, C, P, P] -> [C*P*P, hidden].
                        t = sd[tname].detach().float()
                        a = t.reshape(t.shape[0], -1).t().contiguous() \
                            .cpu().numpy()
                        if list(a.shape) != shape:
                            raise ValueError(
                                f"{tname}: shape {list(a.shape)}, the bundle "
                                f"wants {shape}")
                    else:
                        key, transpose = mapper(tname)
                        key = resolve_key(key, sd)
                        t = sd[key].detach().float()
                        module = linear_module(model, key, t)
                        if module != transpose:
                            note.write(f"{tname} <- {key}: the module is "
                                       f"{'' if module else 'not '}an "
                                       "nn.Linear; following the module\n")
                            transpose = module
                        if transpose:
                            t = t.t()
                        a = t.contiguous().cpu().numpy()
                        if list(a.shape) != shape:
                            raise ValueError(
                                f"{tname} <- {key}{' (transposed)' if transpose else ''}:"
                                f" shape {list(a.shape)}, the bundle wants {shape}")
                    if dtype == "bf16":
                        save_bf16(f, a)
                    else:
                        np.save(f, a.astype(np.float32))
                cmd += ["--input", f"{index}={f}"]
            row["weights"] = f"{by_converter}/{by_converter + mapped}"
            rope = rope_diagnostic(model, plan, note)
            row["rope_inv_freq_diff"] = rope
            tfuse_tied = not vit and not any(
                n.endswith(("lm_head.weight", "decoder.weight"))
                for n in names)
            if tfuse_tied != hf_tied:
                note.write(f"WARNING: tfuse head tied {tfuse_tied}, HF {hf_tied}\n")
            if "ref" not in cached:
                cached["ref"] = vit_reference(model, pixels, note) if vit \
                    else hf_reference(model, model_type, ids, types, mask,
                                      has_types, has_mask, note)
            refs, ref_dtype = cached["ref"]
            if vit:
                head = "pooler" if "--pooler" in meta["flags"] else "hidden"
            else:
                head = "logits" if "--logits" in meta["flags"] else "softmax"
            ref = refs[head]
            row["output"] = head
            if dtype == "bf16" and "hf_bf16" not in cached:
                cached["hf_bf16"] = (
                    vit_bf16_error(model, pixels, refs, note) if vit
                    else hf_bf16_error(model, ids, types, mask, has_types,
                                       has_mask, refs, note)) or {}
            hf_bf16 = cached["hf_bf16"].get(head) if dtype == "bf16" else None
            row["hf_bf16_rel_err"] = hf_bf16
            note.write("$ " + " ".join(cmd[:4]) + " --input ... ("
                       f"{len(targs)})\n")
            t0 = time.time()
            p = subprocess.run(cmd, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True,
                               timeout=args.run_timeout)
            note.write(p.stdout[-4000:] + f"\n[tfuse-run rc={p.returncode}, "
                       f"{time.time() - t0:.1f} s]\n")
            if p.returncode != 0:
                last = (p.stdout.strip().splitlines() or [""])[-1]
                raise RuntimeError(f"tfuse-run rc={p.returncode}: {last[:160]}")
            # One output, named after the HF field (logits.npy, ...).
            saved = os.listdir(os.path.join(work, "out"))
            if len(saved) != 1:
                raise RuntimeError(f"tfuse-run saved {saved}, expected one")
            out = load_output(os.path.join(work, "out", saved[0]), dtype)
            if out.shape != ref.shape:
                raise ValueError(f"output shape {out.shape}, HF {ref.shape}")
            finite = bool(np.isfinite(out).all())
            err = np.abs(np.nan_to_num(out, nan=1e30) - ref)
            max_err = float(err.max()) if finite else float("nan")
            max_ref = float(np.abs(ref).max())
            rel = max_err / max_ref if max_ref > 0 else float("inf")
            worst = tuple(int(i) for i in
                          np.unravel_index(int(err.argmax()), err.shape))
            row.update(max_abs_err=max_err, max_ref=max_ref, rel_err=rel,
                       ref_dtype=ref_dtype, worst=[int(i) for i in worst])
            # bf16: within 2 %, or no worse than the HF class itself in bf16
            # (rounding the logits to bf16 alone moves a softmax of a few
            # thousand vocabulary entries by more than 2 % of its max).
            tol = max(TOLERANCE[dtype], hf_bf16 or 0.0)
            ok = finite and rel <= tol
            reason = "" if ok else (
                "non-finite output" if not finite
                else f"rel {rel:.3g} > {tol:.3g}; worst at {list(worst)}: "
                     f"tfuse {out[worst]:.4g} HF {ref[worst]:.4g}")
            if tfuse_tied != hf_tied:
                reason = (reason + "; " if reason else "") + \
                    f"head tied: tfuse {tfuse_tied}, HF {hf_tied}"
            if rope is not None and rope > 1e-6:
                reason = (reason + "; " if reason else "") + \
                    f"rope inv_freq differs by {rope:.2g}"
            row.update(status="PASS" if ok else "FAIL", reason=reason)
        except Exception as e:  # the row says ERROR, the log has the trace
            note.write(traceback.format_exc())
            row.update(status="ERROR", reason=f"{type(e).__name__}: {e}"[:200])
        finally:
            shutil.rmtree(work, ignore_errors=True)
            note.write(f"{name}: {row}\n")
            note.flush()
    del model, sd
    torch.cuda.empty_cache()


def table(rows):
    lines = [f"{'bundle':36} {'dtype':5} {'max abs err':>11} {'max |ref|':>10} "
             f"{'rel err':>9} {'HF bf16':>9} {'weights':>9} result"]
    for r in rows:
        def num(key):
            v = r.get(key)
            return "-" if v is None else f"{v:.3g}"
        lines.append(f"{r['bundle']:36} {r['dtype']:5} {num('max_abs_err'):>11} "
                     f"{num('max_ref'):>10} {num('rel_err'):>9} "
                     f"{num('hf_bf16_rel_err'):>9} {r.get('weights', '-'):>9} "
                     f"{r.get('status', 'ERROR')} {r.get('reason', '')}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--bundles", default=os.path.join(here, "..", "bundles",
                                                      "models"))
    ap.add_argument("--tfuse-run", default=os.environ.get("TFUSE_RUN",
                                                          "tfuse-run"))
    ap.add_argument("--log-dir", default=os.environ.get("OUT", "/tmp"))
    ap.add_argument("--work", default="/tmp/hf-compare-work")
    ap.add_argument("--only", default="")
    ap.add_argument("--deadline", type=float, default=0.0)
    ap.add_argument("--run-timeout", type=float, default=240.0)
    args = ap.parse_args()
    os.makedirs(args.log_dir, exist_ok=True)
    note = open(os.path.join(args.log_dir, "hf-compare.log"), "w")
    rows = []
    try:
        import torch
        import transformers
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        log(f"torch {torch.__version__}, transformers "
            f"{transformers.__version__}, {torch.cuda.get_device_name()}",
            note)
        groups = {}
        for name in sorted(os.listdir(args.bundles)):
            path = os.path.join(args.bundles, name)
            if not os.path.exists(os.path.join(path, "hf-compare.json")):
                continue
            # One model for both heads (ViT: both outputs).
            family = json.load(open(os.path.join(path, "hf-compare.json")))[
                "family"].removesuffix("-logits").removesuffix("-pooler")
            if args.only and family not in args.only.split(","):
                continue
            groups.setdefault(family, []).append(path)
        # Distinct families first (smallest first), the variants last, so
        # that a deadline leaves out what repeats the least.
        order = ["gpt2", "roberta-base", "Qwen2-0.5B", "bert-large-uncased",
                 "vit-base-patch16-224", "phi-2", "Phi-3-mini-4k-instruct",
                 "Llama-2-7b-hf", "Mistral-window32",
                 "gemma-2b", "Llama-rope-llama3", "Qwen2-rope-yarn",
                 "Mistral-7B-v0.1"]
        rank = {f: i for i, f in enumerate(order)}
        for family, bundles in sorted(groups.items(),
                                      key=lambda g: (rank.get(g[0], 99), g[0])):
            bundles.sort(key=lambda p: (not p.endswith("-f32"), p))
            log(f"== {family}: {', '.join(map(os.path.basename, bundles))}",
                note)
            t0 = time.time()
            try:
                if args.deadline and time.time() > args.deadline:
                    raise TimeoutError("out of time before the model was built")
                run_group(family, bundles, args, rows, note)
            except Exception as e:
                note.write(traceback.format_exc())
                done = {r["bundle"] for r in rows}
                for p in bundles:
                    if os.path.basename(p) not in done:
                        rows.append({"bundle": os.path.basename(p),
                                     "family": family,
                                     "dtype": p.rsplit("-", 1)[-1],
                                     "status": "ERROR",
                                     "reason": f"{type(e).__name__}: {e}"[:200]})
            log(f"   {time.time() - t0:.1f} s: " + ", ".join(
                f"{r['bundle']} {r.get('status')}" for r in rows
                if r["family"] == family), note)
    except Exception:
        log("hf_compare setup failed:\n" + traceback.format_exc(), note)
    finally:
        text = table(rows)
        with open(os.path.join(args.log_dir, "hf-compare.json"), "w") as f:
            json.dump(rows, f, indent=1, default=str)
        with open(os.path.join(args.log_dir, "hf-compare.txt"), "w") as f:
            f.write(text + "\n")
        log("\nHF comparison (tfuse-run vs transformers; -logits bundles: the logits, -pooler: ViT's pooler_output, other vit: last_hidden_state, others: their softmax):",
            note)
        log(text, note)
    ok = rows and all(r.get("status") == "PASS" for r in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
