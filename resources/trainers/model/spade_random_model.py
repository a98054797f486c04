#!/usr/bin/env python3
"""Random-weight GGUF models of real layer shapes, for the trainer's memory and speed measurements.

    model/spade_random_model.py OUT.gguf --shape qwen2.5-1.5b --layers 2 [--vocab 32000] [--type F32|F16] [--seed 0]

writes a `qwen2` (or `llama`) GGUF the gguf trainer loads, with the shape's embedding, head and
MLP sizes, `--layers` blocks and a vocabulary of `--vocab` entries (default: the shape's own). The
weights are random (normal, std 0.02; norms 1): the numbers mean nothing, the tensors' sizes and
the forward pass's cost are those of the real model. No tokenizer: the trainer does not need one.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the trainers' folder, as when run as a script

from model.spade_gguf import write_gguf  # noqa: E402

#: Layer shapes of real models (from their config.json): embedding, MLP, heads, KV heads, head size, vocabulary, tied output.
SHAPES = {
    "tiny": dict(arch="llama", embd=256, ffn=688, heads=8, kv_heads=4, head_dim=32, vocab=4096, tied=True),
    "qwen2.5-0.5b": dict(arch="qwen2", embd=896, ffn=4864, heads=14, kv_heads=2, head_dim=64, vocab=151936, tied=True),
    "qwen2.5-1.5b": dict(arch="qwen2", embd=1536, ffn=8960, heads=12, kv_heads=2, head_dim=128, vocab=151936, tied=True),
    "qwen2.5-7b": dict(arch="qwen2", embd=3584, ffn=18944, heads=28, kv_heads=4, head_dim=128, vocab=152064, tied=False),
}


def parameter_count(shape, layers, vocab=None):
    """Parameters of the model write_random_model writes."""
    e, f, kv = shape["embd"], shape["ffn"], shape["kv_heads"] * shape["head_dim"]
    q = shape["heads"] * shape["head_dim"]
    block = e * q + q * e + 2 * e * kv + 3 * e * f + 2 * e
    if shape["arch"] == "qwen2":
        block += q + 2 * kv
    v = vocab or shape["vocab"]
    return layers * block + v * e * (1 if shape["tied"] else 2) + e


#: llama.cpp's fallback for a row that is not whole 256-value super-blocks (llama-quant.cpp): a K-quant becomes this legacy type.
K_FALLBACK = {"Q4_K": "Q5_0", "Q5_K": "Q5_1", "Q6_K": "Q8_0"}


def block_type(tensor_type, cols):
    """The type a matrix with rows of `cols` values gets when the model is `tensor_type` (llama.cpp's K-quant fallback)."""
    if tensor_type in K_FALLBACK and cols % 256:
        return K_FALLBACK[tensor_type]
    return tensor_type


def write_random_model(path, shape, layers, vocab=None, tensor_type="F32", seed=0):
    """Writes the model; returns its parameter count."""
    rng = np.random.default_rng(seed)
    arch = shape["arch"]
    e, f, heads, kv_heads, d = shape["embd"], shape["ffn"], shape["heads"], shape["kv_heads"], shape["head_dim"]
    v = vocab or shape["vocab"]

    def normal(*dims):
        return (rng.standard_normal(dims, dtype=np.float32) * 0.02).astype(np.float32)

    def matrix(rows, cols):
        """A (rows, cols) weight of tensor_type: float values, or random blocks of a quantised type (make_random_model)."""
        if tensor_type in ("F32", "F16"):
            return normal(rows, cols), tensor_type
        from make_random_model import random_blocks

        return (random_blocks(rng, (rows, cols), block_type(tensor_type, cols), 0.02),)

    tensors = [("token_embd.weight", *matrix(v, e)), ("output_norm.weight", np.ones(e, np.float32))]
    if not shape["tied"]:
        tensors.append(("output.weight", *matrix(v, e)))
    for i in range(layers):
        p = f"blk.{i}."
        tensors += [
            (p + "attn_norm.weight", np.ones(e, np.float32)),
            (p + "attn_q.weight", *matrix(heads * d, e)),
            (p + "attn_k.weight", *matrix(kv_heads * d, e)),
            (p + "attn_v.weight", *matrix(kv_heads * d, e)),
            (p + "attn_output.weight", *matrix(e, heads * d)),
            (p + "ffn_norm.weight", np.ones(e, np.float32)),
            (p + "ffn_gate.weight", *matrix(f, e)),
            (p + "ffn_up.weight", *matrix(f, e)),
            (p + "ffn_down.weight", *matrix(e, f)),
        ]
        if arch == "qwen2":
            tensors += [(p + "attn_q.bias", normal(heads * d)), (p + "attn_k.bias", normal(kv_heads * d)), (p + "attn_v.bias", normal(kv_heads * d))]
    metadata = {
        "general.architecture": arch,
        "general.name": "spade-random",
        f"{arch}.context_length": 32768,
        f"{arch}.embedding_length": e,
        f"{arch}.block_count": layers,
        f"{arch}.feed_forward_length": f,
        f"{arch}.attention.head_count": heads,
        f"{arch}.attention.head_count_kv": kv_heads,
        f"{arch}.attention.key_length": d,
        f"{arch}.attention.value_length": d,
        f"{arch}.attention.layer_norm_rms_epsilon": 1e-6,
        f"{arch}.rope.freq_base": 1000000.0,
    }
    write_gguf(path, metadata, tensors)
    return parameter_count(shape, layers, vocab)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("output")
    parser.add_argument("--shape", default="tiny", choices=sorted(SHAPES))
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--vocab", type=int, default=0, help="vocabulary size (0: the shape's own)")
    parser.add_argument("--type", default="F32", choices=["F32", "F16"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    n = write_random_model(args.output, SHAPES[args.shape], args.layers, args.vocab or None, args.type, args.seed)
    print(f"wrote {args.output}: {args.shape} x {args.layers} layers, {n / 1e6:.1f}M parameters")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
