"""The memory model of a training round: its peak for a model, a batch, a rank and settings.

    peak = base weights as held + one layer's dequantised working copy
         + LoRA (fp32 parameter, gradient, Adam m and v: 16 bytes per LoRA parameter)
         + activations of the largest micro-batch
         + the output layer's chunk

- Activations (N = padded tokens of the micro-batch, B its sequences, T the longest, b the compute
  dtype's bytes): one block keeps ``ACT_E * E + ACT_F * F`` elements per token for its backward
  pass, plus its attention weights ``ACT_ATTN * H * T`` per token where attention is not fused
  (torch < 2, or the float32 path that reproduces llama.cpp's f16 rounding). Without checkpointing
  every block keeps them; with it each block keeps its input (E per token) and one block at a time
  is recomputed, which with its gradients costs about ``CKPT_BLOCKS`` blocks' activations. With few
  layers checkpointing can cost more than it saves; from about 4 layers on it lowers the peak.
- The output layer (spade_logprobs) holds at most ``outputChunkTokens`` positions x vocabulary at
  a time: ``OUT_FULL`` bytes per entry for the reference's full softmax (logits, their exponentials,
  their gradient), ``OUT_SAMPLING`` for the sampling transform (its sort). It does not grow with
  the sequence length.

The coefficients were measured on the CPU (float32, torch 1.13) with random-weight models of the
Qwen2.5 layer shapes, 2 layers (resources/trainers/bench_memory.py); the quantised-weight holding
enters only through ``held_weight_bytes`` and ``layer_working_bytes``.

Only the standard library is imported here; ``free_memory`` imports torch.
"""

#: Elements kept per token per block for the backward pass (measured; see the module doc).
ACT_E = 14.0
ACT_F = 5.0
#: Attention weights kept per token per head per key position where attention is not fused.
ACT_ATTN = 2.0
#: Blocks' worth of activations alive at once in a checkpointed backward pass (the recomputed block and its gradients).
CKPT_BLOCKS = 2.0
#: Bytes per (position x vocabulary entry) of the output layer's chunk.
OUT_FULL = 12.0
OUT_SAMPLING = 45.0

GB = 1e9


class MemoryBudgetError(MemoryError):
    """The predicted peak does not fit the device's free memory: the message names what to lower."""


def lora_parameters(shape, rank, targets):
    """LoRA parameters: rank x (in + out) per adapted projection per layer."""
    e, f = shape["embd"], shape["ffn"]
    q, kv = shape["heads"] * shape["head_dim"], shape["kv_heads"] * shape["head_dim"]
    dims = {"attn_q": (e, q), "attn_k": (e, kv), "attn_v": (e, kv), "attn_output": (q, e), "ffn_gate": (e, f), "ffn_up": (e, f), "ffn_down": (f, e)}
    return shape["layers"] * sum(rank * (dims[t][0] + dims[t][1]) for t in targets)


def micro_batch_shapes(lengths, trained, micro_batch_tokens):
    """(sequences, longest, trained tokens) of each micro-batch, grouped as spade_grpo.micro_batches groups lines."""
    groups, current, longest, count = [], 0, 0, 0
    for n, t in zip(lengths, trained):
        if current and max(longest, n) * (current + 1) > micro_batch_tokens:
            groups.append((current, longest, count))
            current, longest, count = 0, 0, 0
        current += 1
        longest = max(longest, n)
        count += t
    if current:
        groups.append((current, longest, count))
    return groups


def predict(shape, lengths, trained, hyper, dtype_bytes=4, held_weight_bytes=None, layer_working_bytes=0, fused_attention=False):
    """The round's predicted peak in bytes and its parts.

    shape: embd, ffn, heads, kv_heads, head_dim, vocab, layers, tied (spade_random_model.SHAPES
    entries plus ``layers``, or ``shape_of(model)``); lengths / trained: each batch line's tokens and
    trained tokens (the prediction of the batch before it exists: the config's expected lines);
    held_weight_bytes: the base weights as the trainer holds them (default: every parameter in the
    compute dtype).
    """
    e, f, heads, vocab, layers = shape["embd"], shape["ffn"], shape["heads"], shape["vocab"], shape["layers"]
    if held_weight_bytes is None:
        from spade_random_model import parameter_count

        held_weight_bytes = parameter_count(shape, layers, vocab) * dtype_bytes
    lora = 16 * lora_parameters(shape, hyper["rank"], hyper["targets"])
    groups = micro_batch_shapes(lengths, trained, hyper["microBatchTokens"])
    activations, output_layer = 0, 0
    per_entry = OUT_FULL if hyper["logprobs"] == "reference" else OUT_SAMPLING
    for sequences, longest, count in groups:
        tokens = sequences * longest
        block = tokens * dtype_bytes * (ACT_E * e + ACT_F * f)
        if not fused_attention:
            block += sequences * longest * longest * heads * ACT_ATTN * 4
        # checkpointing: every block's input, and one block recomputed with its gradients (measured: ~2 blocks)
        kept = tokens * e * dtype_bytes * layers + CKPT_BLOCKS * block if hyper["checkpointing"] else block * layers
        activations = max(activations, kept + count * e * dtype_bytes * 2)
        output_layer = max(output_layer, min(hyper["outputChunkTokens"], max(count, 1)) * vocab * per_entry)
    parts = {
        "weights": held_weight_bytes + layer_working_bytes,
        "lora": lora,
        "activations": activations,
        "outputLayer": output_layer,
    }
    parts["peak"] = sum(parts.values())
    return parts


def held_weight_bytes(model):
    """Bytes of the base tensors a GgufModel holds."""
    tensors = [model.token_embd, model.output_norm]
    if model.output is not model.token_embd:
        tensors.append(model.output)
    for layer in model.layers:
        tensors.extend(t for t in layer.values() if t is not None)
    return sum(_held_bytes(t) for t in tensors)


def _held_bytes(weight):
    """Bytes a base weight occupies as held: a tensor, a dense copy (spade_weights.DenseWeight) or GGUF bytes (QuantizedWeight)."""
    raw = getattr(weight, "raw", None)
    if raw is not None:
        return raw.numel() * raw.element_size()
    tensor = getattr(weight, "tensor", weight)
    return tensor.numel() * tensor.element_size()


def layer_working_bytes(model, dtype_bytes):
    """The largest dequantised copy alive when weights are held quantised: one block's weights (in the blocks' forward
    and backward passes) or the output matrix (the chunked log-probs read it whole; freed after the output layer's
    backward, before the blocks' backward), never both.

    A weight whose bytes already are the compute dtype (F32 in float32, F16 in float16) is used as a view: no copy.
    """
    def dense(weight):
        working = getattr(weight, "working_bytes", None)
        return working() if working is not None else 0

    block = max((sum(dense(t) for t in layer.values() if t is not None) for layer in model.layers), default=0)
    return max(block, dense(model.output))


def worst_case(longest, hyper):
    """The largest micro-batch a round can have, as (lengths, trained): microBatchTokens of padded tokens, or one sequence of `longest`."""
    tokens = max(hyper["microBatchTokens"], longest)
    lines = max(1, tokens // longest)
    return [longest] * lines, [longest - 1] * lines


def report(parts, free):
    """The prediction as a protocol line's fields."""
    return {"peakBytes": int(parts["peak"]), "freeBytes": None if free is None else int(free), "parts": {k: int(v) for k, v in parts.items() if k != "peak"}}


def describe(parts, free, device_name):
    text = ", ".join(f"{name} {parts[name] / GB:.2f}" for name in ("weights", "lora", "activations", "outputLayer"))
    free_text = "unknown" if free is None else f"{free / GB:.2f} GB"
    return f"predicted training peak {parts['peak'] / GB:.2f} GB ({text} GB) on {device_name}, free {free_text}"


def shape_of(model):
    """The shape dict of a loaded GgufModel."""
    ffn = model.tensor_shapes["blk.0.ffn_up.weight"][0]
    return {
        "embd": model.n_embd,
        "ffn": ffn,
        "heads": model.n_head,
        "kv_heads": model.n_head_kv,
        "head_dim": model.head_dim_k,
        "vocab": model.vocab_size,
        "layers": model.n_layer,
        "tied": model.output is model.token_embd,
    }


def free_memory(device):
    """Bytes free on the device: CUDA's free memory, or the machine's available memory on the CPU."""
    import torch

    if device.type == "cuda":
        free, _ = torch.cuda.mem_get_info(device)
        return int(free)
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for row in f:
                if row.startswith("MemAvailable:"):
                    return int(row.split()[1]) * 1024
    except OSError:
        pass
    return None


def what_to_lower(parts, hyper):
    """The settings that lower the largest parts, in words."""
    advice = []
    if parts["activations"] >= parts["outputLayer"]:
        if not hyper["checkpointing"]:
            advice.append("turn training.checkpointing on")
        advice.append(f"lower training.microBatchTokens (now {hyper['microBatchTokens']}) or the agent's / designer's maxTokens")
    advice.append(f"lower training.outputChunkTokens (now {hyper['outputChunkTokens']})")
    if hyper["logprobs"] != "reference":
        advice.append('use training.logprobs "reference" (no sort over the vocabulary)')
    advice.append(f"lower training.rank (now {hyper['rank']})")
    advice.append("or train a smaller model / a smaller quantisation")
    return "; ".join(advice)


def check(parts, free, hyper, device_name):
    """Refuses a round whose predicted peak exceeds the free memory."""
    if free is None or parts["peak"] <= free:
        return
    detail = ", ".join(f"{name} {parts[name] / GB:.2f} GB" for name in ("weights", "lora", "activations", "outputLayer"))
    raise MemoryBudgetError(f"the training round needs about {parts['peak'] / GB:.2f} GB ({detail}) but {device_name} has {free / GB:.2f} GB free: {what_to_lower(parts, hyper)}")
