"""Writes a random-weight llama GGUF whose matrices are random blocks of one ggml type, with the
tokenizer of a given GGUF (stories260K), so the trainer's dequantisation of that type can be checked
against llama.cpp on the same bytes (tests/integration/trainerQuants.test.ts, `spade bench`'s
training section). The payload bytes are random; the f16 scale fields are set to finite values that
give the weights a sensible spread (the rest of each block is taken as it comes).

    python3 make_random_model.py <tokenizer.gguf> <out.gguf> <TYPE> [--output-std S] [--dim D] [--ffn F] [--layers L] [--seed N] [--arch llama|qwen2|qwen3]

TYPE Q4_K_M writes llama.cpp's Q4_K_M mixture (Q4_K, with Q6_K for the output matrix and, in the
layers llama.cpp gives more bits, attn_v and ffn_down). Defaults: dim 256, FFN 512, 2 blocks, heads of 64 (KV heads half the heads), output std 0.15
(K-quants need rows of 256). The output std sets the logits' spread (about sqrt(dim) x it; the
default gives a trained model's). llama.cpp's CPU backend rounds the activations to 8-bit blocks
against a quantised weight, an error in proportion to the logits: the agreement test and the bench
compare with that rounding emulated (spade_llama_rounding) as well as without.
"""
import argparse
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from model import spade_gguf  # noqa: E402
from model import spade_quants  # noqa: E402

HEAD_DIM = 64

#: byte offsets of each type's f16 scale field d and, where the type has one, its min field with the
#: multiple of d that centres the values near zero (per ggml-common.h: Q4_1 / Q5_1 add m, K-quants subtract dmin x a 4- or 6-bit min)
SCALE_FIELDS = {
    "Q4_0": (0, None), "Q4_1": (0, (2, -7.5)), "Q5_0": (0, None), "Q5_1": (0, (2, -15.5)), "Q8_0": (0, None),
    "Q2_K": (80, (82, 1.5)), "Q3_K": (108, None), "Q4_K": (0, (2, 7.5)), "Q5_K": (0, (2, 15.5)), "Q6_K": (208, None),
}

#: a type llama.cpp runs and the trainer refuses (the run-start check's test): block size, bytes per block, offset of d
UNTRAINABLE = {"IQ4_NL": (32, 18, 0)}


def random_blocks(rng, shape, type_name, std):
    """Bytes of a (rows, cols) matrix of `type_name` whose dequantised values have about this standard deviation."""
    type_id = spade_gguf._TYPE_IDS[type_name]
    if type_name in ("F32", "F16", "BF16"):
        values = (rng.standard_normal(shape) * std).astype(np.float32)
        return spade_gguf.EncodedTensor(spade_gguf.encode_tensor(values, type_name), shape, type_name)
    if type_name in UNTRAINABLE:  # llama.cpp reads it, the trainer does not: d alone, at a fixed size
        block_size, type_size, d_offset = UNTRAINABLE[type_name]
        blocks = rng.integers(0, 256, size=(shape[0] * shape[1] // block_size, type_size), dtype=np.uint8)
        blocks[:, d_offset : d_offset + 2] = np.full(blocks.shape[0], std / 60, dtype=np.float16).view(np.uint8).reshape(-1, 2)
        return spade_gguf.EncodedTensor(blocks.tobytes(), shape, type_name)
    entry = spade_quants.QUANT_TYPES[type_id]
    blocks = rng.integers(0, 256, size=(shape[0] * shape[1] // entry.block_size, entry.type_size), dtype=np.uint8)
    d_offset, min_field = SCALE_FIELDS[type_name]
    d = rng.uniform(0.5, 1.5, size=blocks.shape[0])
    ratio = rng.uniform(0.8, 1.2, size=blocks.shape[0])
    for attempt in range(2):  # set the fields, measure the spread, rescale once (the values are linear in d and the min)
        fields = [(d_offset, d)] + ([(min_field[0], d * min_field[1] * ratio)] if min_field else [])
        for offset, value in fields:
            blocks[:, offset : offset + 2] = value.astype(np.float16).view(np.uint8).reshape(-1, 2)
        values = spade_quants.dequantize(torch.from_numpy(blocks.copy()), type_id).numpy()
        d = d * (std / values.std())
    return spade_gguf.EncodedTensor(blocks.tobytes(), shape, type_name)


ARCHITECTURES = ("llama", "qwen2", "qwen3")
#: Mixtures of a llama.cpp file type (llama-quant.cpp): the base type, and Q6_K for the output matrix and, in the layers
#: `more_bits` picks, attn_v and ffn_down. Q4_K_M is the recommended models' file type.
MIXTURES = {"Q4_K_M": "Q4_K"}


def more_bits(layer, layers):
    """llama.cpp's use_more_bits: the first and last eighth of the layers, and every third one between."""
    return layer < layers // 8 or layer >= 7 * layers // 8 or (layer - layers // 8) % 3 == 2


def tensor_type(type_name, name, layers):
    """The type of tensor `name` in a model of `type_name` (a ggml type, or a mixture of MIXTURES)."""
    if type_name not in MIXTURES:
        return type_name
    if name == "output.weight":
        return "Q6_K"
    parts = name.split(".")
    if parts[0] == "blk" and parts[2] in ("attn_v", "ffn_down") and more_bits(int(parts[1]), layers):
        return "Q6_K"
    return MIXTURES[type_name]


def write_model(source, path, type_name, output_std=0.15, dim=256, ffn=512, layers=2, seed=1, arch="llama"):
    f = spade_gguf.GgufFile(source)
    rng = np.random.default_rng(seed)
    heads = dim // HEAD_DIM
    kv_heads = max(1, heads // 2)
    metadata = {key: spade_gguf._RawValue(f, key) for key in f.metadata if not key.startswith("llama.") and key != "general.file_type"}
    metadata["general.architecture"] = arch
    metadata.update({f"{arch}.{key}": value for key, value in {
        "context_length": 512, "embedding_length": dim, "feed_forward_length": ffn, "block_count": layers, "attention.head_count": heads,
        "attention.head_count_kv": kv_heads, "rope.dimension_count": HEAD_DIM, "attention.layer_norm_rms_epsilon": 1e-5,
    }.items()})
    vocab = len(f.metadata["tokenizer.ggml.tokens"])

    def matrix(name, rows, cols, std):
        return (name, random_blocks(rng, (rows, cols), tensor_type(type_name, name, layers), std))

    def norm(name, size):
        return (name, (1 + rng.standard_normal(size) * 0.1).astype(np.float32))

    tensors = [matrix("token_embd.weight", vocab, dim, 1.0), norm("output_norm.weight", dim), matrix("output.weight", vocab, dim, output_std)]
    for i in range(layers):
        tensors += [
            norm(f"blk.{i}.attn_norm.weight", dim),
            matrix(f"blk.{i}.attn_q.weight", heads * HEAD_DIM, dim, 1.5 / dim**0.5),
            matrix(f"blk.{i}.attn_k.weight", kv_heads * HEAD_DIM, dim, 1.5 / dim**0.5),
            matrix(f"blk.{i}.attn_v.weight", kv_heads * HEAD_DIM, dim, 1.0 / dim**0.5),
            matrix(f"blk.{i}.attn_output.weight", dim, heads * HEAD_DIM, 1.0 / dim**0.5),
            norm(f"blk.{i}.ffn_norm.weight", dim),
            matrix(f"blk.{i}.ffn_gate.weight", ffn, dim, 1.0 / dim**0.5),
            matrix(f"blk.{i}.ffn_up.weight", ffn, dim, 1.0 / dim**0.5),
            matrix(f"blk.{i}.ffn_down.weight", dim, ffn, 1.0 / ffn**0.5),
        ]
        if arch == "qwen2":  # q/k/v biases
            tensors += [(f"blk.{i}.attn_{n}.bias", (rng.standard_normal(rows) * 0.1).astype(np.float32)) for n, rows in (("q", heads * HEAD_DIM), ("k", kv_heads * HEAD_DIM), ("v", kv_heads * HEAD_DIM))]
        if arch == "qwen3":  # q/k RMSNorm per head
            tensors += [norm(f"blk.{i}.attn_q_norm.weight", HEAD_DIM), norm(f"blk.{i}.attn_k_norm.weight", HEAD_DIM)]
    spade_gguf.write_gguf(path, metadata, tensors)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source", help="the GGUF whose tokenizer the model takes")
    parser.add_argument("output")
    parser.add_argument("type", help="ggml type of the matrices: " + ", ".join(spade_quants.supported_type_names() + list(UNTRAINABLE)) + "; or the mixture " + ", ".join(MIXTURES))
    parser.add_argument("--output-std", type=float, default=0.15)
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--ffn", type=int, default=512)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--arch", default="llama", choices=ARCHITECTURES)
    args = parser.parse_args(argv)
    known = set(spade_quants.supported_type_names()) | set(UNTRAINABLE) | set(MIXTURES)
    if args.type not in known:
        parser.error(f"type {args.type!r} is not one of {', '.join(sorted(known))}")
    for name, value in (("--dim", args.dim), ("--ffn", args.ffn)):
        if value % 256:
            parser.error(f"{name} {value}: expected a multiple of 256 (the K-quants' block)")
    write_model(args.source, args.output, args.type, args.output_std, args.dim, args.ffn, args.layers, args.seed, args.arch)


if __name__ == "__main__":
    main(sys.argv[1:])
