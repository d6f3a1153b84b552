#!/usr/bin/env python3
"""Writes a Hugging Face-style safetensors checkpoint for a bundle's weights.

    make-checkpoint.py FAMILY BUNDLE OUT.safetensors EXPECTED_DIR [--bf16]
                       [--break shape|ambiguous]

For every input of BUNDLE/plan.json except the activations, a tensor in the
graph's layout with exact small values (multiples of 1/64, exact in bf16),
stored under the model class's prefix in the layout the class itself keeps
(decided here from the Hugging Face conventions, not from the plan): llama's
nn.Linear weights [out, in], its embed_tokens [vocab, hidden]; GPT-2's
Conv1D [in, out]; ViT's patch projection a Conv2d [hidden, C, P, P].
EXPECTED_DIR/NAME.npy is what checkpoint-to-npy.py must write (bf16 plans:
raw '<u2' bits). --bf16 stores the checkpoint in BF16; --break makes one
tensor's shape wrong or adds a second key ending in one name.
"""
import json
import os
import struct
import sys

import numpy as np

ACTIVATIONS = {"input_ids", "token_type_ids", "attention_mask",
               "hidden_states", "pixel_patches"}
PREFIX = {"llama": "model.", "gpt2": "transformer.", "vit": "vit."}


def hf_layout(family, name, graph):
    """The tensor as the model class stores it."""
    if family == "vit" and name.endswith("patch_embeddings.projection.weight"):
        hidden = graph.shape[1]
        patch = int(round((graph.shape[0] // 3) ** 0.5))
        return graph.T.reshape(hidden, 3, patch, patch)
    linear = graph.ndim == 2 and name.endswith(".weight") and \
        "embed" not in name and "position_embeddings" not in name
    if family == "gpt2" and name != "lm_head.weight":
        linear = False  # Conv1D
    return graph.T if linear else graph


def bf16_bits(a):
    # The values are exact in bf16: the top half of the f32 bits.
    return (np.ascontiguousarray(a, np.float32).view(np.uint32) >> 16) \
        .astype(np.uint16)


def main():
    family, bundle, out, expected = sys.argv[1:5]
    flags = sys.argv[5:]
    store_bf16 = "--bf16" in flags
    broken = flags[flags.index("--break") + 1] if "--break" in flags else None
    plan = json.load(open(os.path.join(bundle, "plan.json")))
    by_id = {b["id"]: b for b in plan["buffers"]}
    os.makedirs(expected, exist_ok=True)
    tensors = {}
    for n, i in enumerate(plan["inputs"]):
        b = by_id[i]
        if b["name"] in ACTIVATIONS:
            continue
        shape = b["shape"]
        count = int(np.prod(shape))
        graph = (((np.arange(count) * 7 + n) % 97 - 48) / 64.0) \
            .astype(np.float32).reshape(shape)
        np.save(os.path.join(expected, b["name"] + ".npy"),
                bf16_bits(graph) if b["dtype"] == "bf16" else graph)
        stored = hf_layout(family, b["name"], graph)
        key = b["name"] if b["name"].startswith("lm_head.") \
            else PREFIX[family] + b["name"]
        if broken == "shape" and not tensors:
            stored = stored.reshape(-1)[:-1]
        tensors[key] = np.ascontiguousarray(stored)
        if broken == "ambiguous" and len(tensors) == 1:
            tensors["other." + key] = tensors[key]
    header, blobs, offset = {}, [], 0
    for key, a in tensors.items():
        data = bf16_bits(a).tobytes() if store_bf16 else \
            a.astype("<f4").tobytes()
        header[key] = {"dtype": "BF16" if store_bf16 else "F32",
                       "shape": list(a.shape),
                       "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(out, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


if __name__ == "__main__":
    main()
