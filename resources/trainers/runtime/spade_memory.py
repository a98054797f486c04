"""The memory model of a training round: its peak for a model, a batch, a rank and settings.

A round's forward and backward pass go through two phases that never hold their memory at once:
the output layer (spade_logprobs: the end of the forward pass and the start of the backward pass)
and the blocks' backward pass (one block recomputed under checkpointing, with its gradients). The
output layer's backward has run, and freed its chunks and its copy of the output matrix, before the
first block's backward starts. So

    peak = base weights as held
         + LoRA (fp32 parameter, gradient, Adam m and v: 16 bytes per LoRA parameter; a round that
           continues its parent's optimiser has the moments loaded before its forward pass)
         + what the blocks keep for the backward pass (kept)
         + max(block phase, output phase)

- **kept**: with checkpointing, each block's input (E per token) and the final hidden states of the
  trained positions with their gradient; without it, every other block's saved tensors
  (``KEPT_SHARE`` of a block phase's activations each).
- **block phase**: one block's activations and gradients at the widest point of its backward pass,
  ``ACT_E * E + ACT_F * F`` elements per token of the micro-batch (N = sequences x longest), plus its
  attention weights ``ACT_ATTN`` per (sequence, head, query, key) where attention is not fused
  (torch < 2, or the float32 path that reproduces llama.cpp's f16 rounding), plus one projection's
  dequantisation at its peak: spade_weights dequantises one weight at a time, in the forward and
  again in the backward pass, and keeps none (the largest matrix counts, not a block's sum); the
  dequantiser's intermediate arrays live beside its result (spade_quants.DEQUANT_PEAK: up to 3.35
  copies of a float32 result, 6.7 of a bf16 one), and a weight of more than
  spade_weights.DEQUANT_CHUNK values is dequantised a block of rows at a time, so its peak is the
  result and one block's.
- **output phase**: the output matrix's dequantised copy (read whole by the chunked log-probs) plus
  one chunk's temporaries, or the peak of that matrix's dequantisation where it is larger (before
  any chunk exists); a chunk's temporaries: rows x vocabulary x ``OUT_*`` bytes, where rows is
  min(outputChunkTokens, the most trained tokens of one line in the micro-batch) since the chunks
  are taken line by line. It does not grow with the sequence length beyond the chunk. Every round's
  forward pass also computes the recorded function (llama.cpp's sampling transform, for the
  log-prob check), whose top-p sort is the widest temporary where lines were sampled with top-k,
  top-p or min-p (a run's default); the reference's full softmax alone needs ``OUT_FULL``.

The allocator. On the CPU a tensor is a glibc ``malloc``. The trainer worker runs with glibc's mmap threshold fixed
at ``MMAP_THRESHOLD`` (128 KiB, glibc's starting value; the engine sets ``MALLOC_MMAP_THRESHOLD_`` where it spawns the
worker, main/training/trainerAllocatorEnv.ts), so every tensor of note is a mapping of its own, returned to the system
when freed, and a phase's resident peak is its live tensors. (With glibc's default, dynamic threshold, tensors under
up to 32 MiB came from the heap, which kept freed blocks: the resident peak was about twice the live tensors (PyTorch's
profiler: 77 MB live vs 166 MB resident at 10M parameters) and moved by up to 12-23% between identical rounds with
the heap's layout.) Each class of tensors (E-wide rows, F-wide rows, attention weights, output chunks) has one
coefficient. The coefficients are resident bytes measured on this CPU (float32, torch 1.13, 1 thread) with
random-weight models of real layer shapes (resources/trainers/bench_memory.py: 10M, 50M and 200M parameters, 4 x 256
tokens, rank 8, the worker's threshold). The same coefficients serve on CUDA, where the tensors of a model worth a GPU
are large and the caching allocator's blocks (not measured here: the GPU check does) are the analogue of the mappings.
The quantised-weight holding enters only through ``held_weight_bytes`` and the working copies.

The workbench says before download what trains where with the same model, written out again in
TypeScript (shared/trainingMemory.ts, ``predictTrainingPeak``): a change here, to a constant or a
term, must be made there too; tests/unit/trainingMemoryParity.test.ts runs both on the same inputs.

Only the standard library is imported here; ``free_memory`` imports torch.
"""
from collections import namedtuple

#: Elements per token of a recomputed block at the widest point of its backward pass, per unit of E and of F: a block's
#: live tensors (norms, projections, RoPE, the attention's operands, the MLP's gate, SiLU, up and product, and the
#: backward's gradients), as resident mappings. Fitted, with ACT_ATTN and OUT_SAMPLING, to the 10M, 50M and 200M rows of
#: bench_memory.py --suite (4 x 256 tokens, rank 8: within 10%, the 10M rows the highest at 1.09) and to lines of 512 to
#: 2048 tokens where the attention weights weigh most (stories260K, 10M, 50M; 1 to 4 lines: within 13%).
ACT_E = 7.75
ACT_F = 6.75
#: Attention-weight copies per (sequence, head, query, key), float32, where attention is not fused: the weights, kept for
#: the backward pass (scaled, masked, normalised and rounded in place: spade_gguf_model._Attention), and their gradient
#: in the backward. (Composed of separate operations, the same attention held 4 to 5 copies.)
ACT_ATTN = 2.0
#: Without checkpointing, the share of a block phase's activations every other block keeps to the backward pass (10M F16,
#: 4 x 256 tokens: 0.83).
KEPT_SHARE = 0.83
#: Bytes per (position x vocabulary entry) of the output layer's chunk: the full softmax (logits, their tempered copy, the
#: exponentials; the gradient at the backward) and the sampling transform (probabilities, their sort's values and int64
#: order, the cumulative sum, the masks). Measured as whole mappings (bench_memory.py --output-layer, 64-dim hidden
#: states): the sampling transform 38-44 at 70k-300k entries in chunks of 128-512; 46 would fit the 50M rows (32k entries) best.
OUT_FULL = 12.0
OUT_SAMPLING = 42.0

GB = 1e9

#: The dequantised copies a round makes of its base weights: one projection at a time in the blocks (at its
#: dequantisation's peak), the output matrix whole (its copy, and its dequantisation's peak).
WorkingCopies = namedtuple("WorkingCopies", ["block", "output", "output_peak"])


class MemoryBudgetError(MemoryError):
    """The predicted peak does not fit the device's free memory: the message names what to lower."""


def lora_parameters(shape, rank, targets):
    """LoRA parameters: rank x (in + out) per adapted projection per layer."""
    e, f = shape["embd"], shape["ffn"]
    q, kv = shape["heads"] * shape["head_dim"], shape["kv_heads"] * shape["head_dim"]
    dims = {"attn_q": (e, q), "attn_k": (e, kv), "attn_v": (e, kv), "attn_output": (q, e), "ffn_gate": (e, f), "ffn_up": (e, f), "ffn_down": (f, e)}
    return shape["layers"] * sum(rank * (dims[t][0] + dims[t][1]) for t in targets)


def micro_batch_shapes(lengths, trained, micro_batch_tokens):
    """(sequences, longest, trained tokens, most trained tokens of one line) of each micro-batch, grouped as spade_grpo.micro_batches groups lines."""
    groups, current, longest, count, widest = [], 0, 0, 0, 0
    for n, t in zip(lengths, trained):
        if current and max(longest, n) * (current + 1) > micro_batch_tokens:
            groups.append((current, longest, count, widest))
            current, longest, count, widest = 0, 0, 0, 0
        current += 1
        longest = max(longest, n)
        count += t
        widest = max(widest, t)
    if current:
        groups.append((current, longest, count, widest))
    return groups


def block_phase_activations(shape, sequences, longest, dtype_bytes, fused_attention):
    """Bytes of one block's activations and gradients at the widest point of its backward pass."""
    e, f, heads = shape["embd"], shape["ffn"], shape["heads"]
    tokens = sequences * longest
    act = tokens * dtype_bytes * (e * ACT_E + f * ACT_F)
    if not fused_attention:
        act += sequences * heads * longest * longest * 4 * ACT_ATTN
    return act


def output_chunk_bytes(rows, vocab, sampling_transform):
    """Bytes of one output-layer chunk's temporaries: `rows` positions x the vocabulary."""
    return rows * vocab * (OUT_SAMPLING if sampling_transform else OUT_FULL)


def predict(shape, lengths, trained, hyper, dtype_bytes=4, held_weight_bytes=None, layer_working_bytes=0, fused_attention=False, truncating=True):
    """The round's predicted peak in bytes and its parts.

    shape: embd, ffn, heads, kv_heads, head_dim, vocab, layers, tied (spade_random_model.SHAPES
    entries plus ``layers``, or ``shape_of(model)``); lengths / trained: each batch line's tokens and
    trained tokens (the prediction of the batch before it exists: the config's expected lines);
    held_weight_bytes: the base weights as the trainer holds them (default: every parameter in the
    compute dtype); layer_working_bytes: the dequantised copies (``WorkingCopies``, or one number
    counted in both phases); truncating: whether the lines were sampled with top-k, top-p or min-p
    (the recorded function's sort then sets the output chunk's width).

    The parts: ``weights`` (held), ``lora``, ``activations`` (kept + the block phase with its working
    copy), ``outputLayer`` (the output phase with the output matrix's copy) and ``outputKept`` (the
    activations still held while the output layer runs); the peak is weights + lora + the larger of
    activations and outputKept + outputLayer.
    """
    e, vocab, layers = shape["embd"], shape["vocab"], shape["layers"]
    if held_weight_bytes is None:
        from model.spade_random_model import parameter_count

        held_weight_bytes = parameter_count(shape, layers, vocab) * dtype_bytes
    copies = layer_working_bytes if isinstance(layer_working_bytes, WorkingCopies) else WorkingCopies(layer_working_bytes, layer_working_bytes, layer_working_bytes)
    lora = 16 * lora_parameters(shape, hyper["rank"], hyper["targets"])
    sampling_transform = truncating or hyper["logprobs"] != "reference"
    activations, output_layer, kept_at_output = 0, 0, 0
    for sequences, longest, count, widest in micro_batch_shapes(lengths, trained, hyper["microBatchTokens"]):
        tokens = sequences * longest
        block = block_phase_activations(shape, sequences, longest, dtype_bytes, fused_attention)
        hidden = count * e * dtype_bytes * 2  # the trained positions' final hidden states and their gradient
        if hyper["checkpointing"]:
            kept = tokens * e * dtype_bytes * layers + hidden
        else:
            kept = (layers - 1) * KEPT_SHARE * block + hidden
        activations = max(activations, kept + block + copies.block)
        chunk = output_chunk_bytes(min(hyper["outputChunkTokens"], max(widest, 1)), vocab, sampling_transform)
        phase = max(copies.output + chunk, copies.output_peak)  # the matrix's dequantisation, then its copy beside one chunk
        if phase + kept > output_layer + kept_at_output:
            output_layer, kept_at_output = phase, kept
    parts = {"weights": held_weight_bytes, "lora": lora, "activations": activations, "outputLayer": output_layer, "outputKept": kept_at_output}
    parts["peak"] = held_weight_bytes + lora + max(activations, kept_at_output + output_layer)
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
    """The dequantised copies alive when weights are held quantised (``WorkingCopies``): in the blocks, the largest single
    projection's dequantisation at its peak, with the dequantiser's intermediate arrays (spade_quants.DEQUANT_PEAK: it runs
    while the block's activations are alive; spade_weights dequantises one weight per matmul, forward and backward, and
    keeps none); in the output layer, the output matrix's copy (the chunked log-probs read it whole; it is dequantised
    before any chunk's temporaries exist and freed after the output layer's backward, before the blocks' backward).

    A weight whose bytes already are the compute dtype (F32 in float32, F16 in float16) is used as a view: no copy.
    """
    def dense(weight, at_peak):
        if getattr(weight, "working_bytes", None) is None:
            return 0
        return weight.peak_bytes() if at_peak else weight.working_bytes()

    block = max((dense(t, True) for layer in model.layers for t in layer.values() if t is not None), default=0)
    return WorkingCopies(block, dense(model.output, False), dense(model.output, True))


def worst_case(longest, hyper):
    """The largest micro-batch a round can have, as (lengths, trained): microBatchTokens of padded tokens, or one sequence of `longest`."""
    tokens = max(hyper["microBatchTokens"], longest)
    lines = max(1, tokens // longest)
    return [longest] * lines, [longest - 1] * lines


def report(parts, free):
    """The prediction as a protocol line's fields."""
    return {"peakBytes": int(parts["peak"]), "freeBytes": None if free is None else int(free), "parts": {k: int(v) for k, v in parts.items() if k != "peak"}}


def _parts_text(parts):
    return f"weights {parts['weights'] / GB:.2f} GB, lora {parts['lora'] / GB:.2f} GB, then the larger of activations {parts['activations'] / GB:.2f} GB and outputLayer {parts['outputLayer'] / GB:.2f} GB"


def describe(parts, free, device_name):
    free_text = "unknown" if free is None else f"{free / GB:.2f} GB"
    return f"predicted training peak {parts['peak'] / GB:.2f} GB ({_parts_text(parts)}) on {device_name}, free {free_text}"


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
    advice.append(f"lower training.rank (now {hyper['rank']})")
    advice.append("or train a smaller model / a smaller quantisation")
    return "; ".join(advice)


def check(parts, free, hyper, device_name):
    """Refuses a round whose predicted peak exceeds the free memory."""
    if free is None or parts["peak"] <= free:
        return
    raise MemoryBudgetError(f"the training round needs about {parts['peak'] / GB:.2f} GB ({_parts_text(parts)}) but {device_name} has {free / GB:.2f} GB free: {what_to_lower(parts, hyper)}")
