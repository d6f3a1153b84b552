#!/usr/bin/env python3
"""Writes a checkpoint's tensors as the .npy inputs of a tfuse bundle.

    scripts/checkpoint-to-npy.py BUNDLE CHECKPOINT OUT_DIR

BUNDLE is a directory of tfuse-compile (its plan.json names every input: the
`tfuse.name` tfuse-import gave it, a state-dict key such as
`encoder.layer.0.attention.self.query.weight`). CHECKPOINT is a Hugging Face
checkpoint: a .safetensors file, a directory with model.safetensors (or the
shards model.safetensors.index.json lists, or pytorch_model.bin), or a
PyTorch state dict (.bin / .pt / .pth, read with torch.load(weights_only=True);
only this form needs PyTorch). For every plan input, the checkpoint entry is
the key equal to its name or the one key that ends with "." + its name (the
model class's prefix: `bert.`, `model.`, `transformer.`); the MLM heads'
`predictions.bias` may be stored as `predictions.decoder.bias`, its tied twin.

Each tensor is written as OUT_DIR/NAME.npy in the plan's dtype (bf16 as raw
'<u2' bits, rounded to nearest even), transposed where the plan marks the
input `checkpoint_transposed` (nn.Linear stores [out, in], the graph reads
[in, out]; a Conv2d patch embedding [out, C, P, P] is flattened to
[out, C*P*P] first). Shapes must then equal the plan's exactly. Then

    tfuse-run BUNDLE --inputs OUT_DIR --input input_ids=ids.npy ...

runs the graph on the checkpoint's weights. Inputs the checkpoint does not
hold (input_ids, attention_mask, hidden_states) are listed and left to
--input. OUT_DIR is created if needed; a file already there is never
overwritten (exit 1), and each file is written to a temporary name first.
Needs NumPy. Exit status: 0 written, 1 an error (printed with the input's
name), 2 usage.
"""

import argparse
import json
import os
import struct
import sys
import tempfile

import numpy as np

# The plan's dtypes (ref::dtypeName) as NumPy types; bf16 is handled apart.
PLAN_DTYPES = {"f32": np.float32, "f16": np.float16, "i32": np.int32,
               "i64": np.int64}
# safetensors' dtype names; BF16 is read as raw uint16 bits.
SAFETENSORS_DTYPES = {"F64": np.float64, "F32": np.float32, "F16": np.float16,
                      "BF16": np.uint16, "I64": np.int64, "I32": np.int32,
                      "I16": np.int16, "I8": np.int8, "U8": np.uint8,
                      "BOOL": np.bool_}
# Tied twins a checkpoint may store under the other name.
ALIASES = {"predictions.bias": "predictions.decoder.bias",
           "lm_head.bias": "lm_head.decoder.bias"}


class ConvertError(Exception):
    pass


# --------------------------------------------------------------------------
# Reading checkpoints
# --------------------------------------------------------------------------

class Entry:
    """One checkpoint tensor, read on demand (safetensors: memory-mapped)."""

    def __init__(self, load, shape, bf16):
        self.load, self.shape, self.bf16 = load, tuple(shape), bf16

    def as_float32(self):
        a = self.load()
        if self.bf16:
            return (a.astype(np.uint32) << 16).view(np.float32)
        return a


def read_safetensors(path, entries):
    with open(path, "rb") as f:
        raw = f.read(8)
        if len(raw) != 8:
            raise ConvertError(f"{path}: not a safetensors file (too short)")
        (size,) = struct.unpack("<Q", raw)
        if size > 100 << 20:
            raise ConvertError(f"{path}: a header of {size} bytes is not a "
                               "safetensors header")
        try:
            header = json.loads(f.read(size))
        except ValueError as e:
            raise ConvertError(f"{path}: the safetensors header is not JSON: "
                               f"{e}")
    start = 8 + size
    file_size = os.path.getsize(path)
    for key, info in header.items():
        if key == "__metadata__":
            continue
        dtype = SAFETENSORS_DTYPES.get(info.get("dtype"))
        if dtype is None:
            raise ConvertError(f"{path}: {key} has dtype {info.get('dtype')},"
                               " which this script does not read")
        shape = [int(d) for d in info["shape"]]
        begin, end = (int(o) for o in info["data_offsets"])
        count = int(np.prod(shape, dtype=np.int64))
        if end - begin != count * np.dtype(dtype).itemsize or \
                start + end > file_size:
            raise ConvertError(f"{path}: {key}'s data_offsets [{begin}, {end})"
                               f" do not hold {shape} of {info['dtype']}")

        def load(begin=begin, dtype=dtype, count=count, shape=shape):
            if count == 0:  # np.memmap cannot map zero bytes
                return np.zeros(shape, dtype=dtype)
            return np.memmap(path, dtype=np.dtype(dtype).newbyteorder("<"),
                             mode="r", offset=start + begin,
                             shape=(count,)).reshape(shape)
        entries[key] = Entry(load, shape, info["dtype"] == "BF16")


def read_torch(path, entries):
    try:
        import torch
    except ImportError:
        raise ConvertError(f"{path}: a PyTorch state dict needs torch; "
                           "convert it to safetensors or install torch")
    sd = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(sd, dict):
        raise ConvertError(f"{path}: holds a {type(sd).__name__}, not a "
                           "state dict")
    for key, t in sd.items():
        if not torch.is_tensor(t):
            continue
        entries[key] = Entry(lambda t=t: t.float().numpy()
                             if t.is_floating_point() else t.numpy(),
                             t.shape, False)


def read_checkpoint(path):
    entries = {}
    if os.path.isdir(path):
        index = os.path.join(path, "model.safetensors.index.json")
        single = os.path.join(path, "model.safetensors")
        if os.path.exists(index):
            shards = sorted(set(json.load(open(index))["weight_map"].values()))
            for shard in shards:
                read_safetensors(os.path.join(path, shard), entries)
        elif os.path.exists(single):
            read_safetensors(single, entries)
        elif os.path.exists(os.path.join(path, "pytorch_model.bin")):
            read_torch(os.path.join(path, "pytorch_model.bin"), entries)
        else:
            raise ConvertError(f"{path}: no model.safetensors, "
                               "model.safetensors.index.json or "
                               "pytorch_model.bin")
    elif path.endswith(".safetensors"):
        read_safetensors(path, entries)
    elif path.endswith((".bin", ".pt", ".pth")):
        read_torch(path, entries)
    else:
        raise ConvertError(f"{path}: expected a .safetensors, .bin, .pt or "
                           ".pth file, or a checkpoint directory")
    return entries


# --------------------------------------------------------------------------
# Matching and converting
# --------------------------------------------------------------------------

def find_key(name, entries):
    """The checkpoint key of plan input `name`, or None."""
    candidates = [name]
    for tail, twin in ALIASES.items():
        if name.endswith(tail):
            candidates.append(name[:-len(tail)] + twin)
    for candidate in candidates:
        if candidate in entries:
            return candidate
        suffixed = [k for k in entries if k.endswith("." + candidate)]
        if len(suffixed) > 1:
            raise ConvertError(f"{name}: the checkpoint has several keys "
                               f"ending in it: {', '.join(sorted(suffixed))}")
        if suffixed:
            return suffixed[0]
    return None


def to_bf16_bits(a):
    """float32 -> bfloat16 bits, round to nearest even (NaN stays NaN)."""
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    nan = np.isnan(a)
    return np.where(nan, (bits >> 16) | 0x40, rounded).astype(np.uint16)


def convert(buffer, key, entry):
    """The array to save for plan buffer `buffer` from checkpoint `entry`."""
    name, shape = buffer["name"], [int(d) for d in buffer["shape"]]
    a = entry.as_float32() if buffer["dtype"] in ("f32", "f16", "bf16") \
        else entry.load()
    source = list(entry.shape)
    if buffer.get("checkpoint_transposed"):
        if len(shape) != 2 or not source or source[0] != shape[1] or \
                int(np.prod(source)) != shape[0] * shape[1]:
            raise ConvertError(
                f"{name} <- {key}: the checkpoint's {source} is not the "
                f"[out, in] of the plan's [in, out] = {shape}")
        a = np.asarray(a).reshape(shape[1], shape[0]).T
    elif source != shape:
        raise ConvertError(f"{name} <- {key}: the checkpoint has shape "
                           f"{source}, the plan wants {shape}")
    if buffer["dtype"] == "bf16":
        return to_bf16_bits(np.asarray(a, dtype=np.float32))
    dtype = PLAN_DTYPES.get(buffer["dtype"])
    if dtype is None:
        raise ConvertError(f"{name}: the plan's dtype {buffer['dtype']} is "
                           "not one this script writes")
    return np.ascontiguousarray(a, dtype=dtype)


def save_new(path, array):
    """Writes `array` to `path` through a temporary file; never replaces."""
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".npy")
    try:
        with os.fdopen(fd, "wb") as f:
            np.save(f, array)
        os.link(tmp, path)  # fails if path exists: nothing is overwritten
    except FileExistsError:
        raise ConvertError(f"{path} exists; not overwriting it")
    finally:
        os.unlink(tmp)


def main(argv):
    parser = argparse.ArgumentParser(
        description="Writes a checkpoint's tensors as a tfuse bundle's "
                    ".npy inputs (see the module docstring).")
    parser.add_argument("bundle", help="tfuse-compile output directory")
    parser.add_argument("checkpoint", help=".safetensors, .bin/.pt/.pth, or "
                        "a checkpoint directory")
    parser.add_argument("out_dir", help="directory for NAME.npy")
    args = parser.parse_args(argv)

    try:
        plan_path = os.path.join(args.bundle, "plan.json")
        try:
            plan = json.load(open(plan_path))
        except (OSError, ValueError) as e:
            raise ConvertError(f"{plan_path}: {e}")
        try:
            by_id = {b["id"]: b for b in plan["buffers"]}
            inputs = [by_id[i] for i in plan["inputs"]]
            for b in inputs:
                b["name"], b["shape"], b["dtype"]  # noqa: B018 (present)
        except (KeyError, TypeError) as e:
            raise ConvertError(f"{plan_path}: not a tfuse plan (no {e}); "
                               "validate it with tfuse-run --validate")
        entries = read_checkpoint(args.checkpoint)
        os.makedirs(args.out_dir, exist_ok=True)
        written, missing = [], []
        for buffer in inputs:
            key = find_key(buffer["name"], entries)
            if key is None:
                missing.append(buffer["name"])
                continue
            array = convert(buffer, key, entries[key])
            save_new(os.path.join(args.out_dir, buffer["name"] + ".npy"),
                     array)
            written.append(buffer["name"])
            print(f"{buffer['name']} <- {key} {list(entries[key].shape)}"
                  f"{' transposed' if buffer.get('checkpoint_transposed') else ''}"
                  f" -> {buffer['dtype']} {list(array.shape)}")
        if not written:
            raise ConvertError(
                f"no input of {plan_path} is in {args.checkpoint} (inputs: "
                f"{', '.join(b['name'] for b in inputs)})")
        print(f"{len(written)} of {len(inputs)} inputs written to "
              f"{args.out_dir}" + (f"; not in the checkpoint (give them with"
                                   f" --input): {', '.join(missing)}"
                                   if missing else ""))
    except ConvertError as e:
        print(f"checkpoint-to-npy: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
