#!/usr/bin/env python3
"""SPADE's built-in trainer "gguf": LoRA straight on the GGUF you run (PyTorch and NumPy only).

Reads the base weights from the GGUF file, computes the forward pass of the llama family the way
llama.cpp does (llama: RMSNorm, RoPE with adjacent pairs, GQA, SwiGLU; qwen2: q/k/v biases and
neox RoPE; qwen3: q/k RMSNorm and neox RoPE), trains LoRA adapters on the attention and MLP
projections with the clipped GRPO objective and truncated importance sampling against the
recorded behaviour log-probs, and writes the adapter as a GGUF LoRA llama.cpp loads directly.

    train_gguf.py --worker [--device auto|cpu|cuda] [--dtype auto|float32|bfloat16|float16] [--threads N] [--base-model M.gguf]

runs the persistent worker of the line protocol (see README.md); the one-shot form

    train_gguf.py --batch batch.jsonl --base-model M.gguf --output adapter.gguf [--parent-adapter P.gguf] [--hyper '{...}']

runs one round and prints the same protocol lines.
"""
import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from spade_gguf import GgufError, GgufFile, write_gguf  # noqa: E402
import spade_device  # noqa: E402
import spade_weights  # noqa: E402
import spade_grpo  # noqa: E402
import spade_llama_rounding  # noqa: E402
import spade_logprobs  # noqa: E402
import spade_memory  # noqa: E402
import spade_prefix  # noqa: E402
import spade_step  # noqa: E402
import spade_warmup  # noqa: E402
from spade_grpo import TrainerInputError  # noqa: E402

SUPPORTED = ("llama", "qwen2", "qwen3")
# llama.cpp's rope type per architecture: llama rotates adjacent pairs (LLAMA_ROPE_TYPE_NORM), the qwen family the two halves (NEOX).
ROPE_NEOX = {"llama": False, "qwen2": True, "qwen3": True}


def _torch():
    try:
        import torch
    except ImportError:
        sys.stderr.write("train_gguf.py needs PyTorch (Debian: apt-get install python3-torch; else pip install torch)\n")
        raise
    return torch


_ROUND_F16 = None


def round_f16(x):
    """x rounded to float16 precision (llama.cpp's f16 KV cache); the gradient passes straight through."""
    global _ROUND_F16
    if _ROUND_F16 is None:
        torch = _torch()

        class RoundF16(torch.autograd.Function):
            @staticmethod
            def forward(ctx, value):
                return value.to(torch.float16).to(value.dtype)

            @staticmethod
            def backward(ctx, grad):
                return grad

        _ROUND_F16 = RoundF16
    return _ROUND_F16.apply(x)


class GgufModel:
    """The base model: hyperparameters and weights from a GGUF file, and llama.cpp's forward pass."""

    #: the projections (and the embedding / output matrices) whose weights are held as `weights` says; norms and biases are small and kept dense
    LINEAR = ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down")

    def __init__(self, path, device, dtype, kv_f16=None, checkpointing=None, weights="quantized"):
        torch = _torch()
        # float32 (the CPU): reproduce llama.cpp's f16 rounding in attention; bf16/fp16 on a GPU are coarser anyway
        self.kv_f16 = (dtype == torch.float32) if kv_f16 is None else kv_f16
        # recompute activations in the backward pass (hyper.checkpointing sets it per round; on by default)
        self.checkpointing = True if checkpointing is None else checkpointing
        # llama.cpp's CPU rounding, emulated (spade_llama_rounding); set only by the agreement check, never in training
        self.rounding = None
        try:
            f = GgufFile(path)
        except GgufError as error:
            raise TrainerInputError(str(error)) from None
        self.path = path
        arch = f.get("general.architecture")
        if f.get("general.type") == "adapter":
            raise TrainerInputError(f"{path}: this is a LoRA adapter (general.type = adapter), not a base model")
        if arch not in SUPPORTED:
            raise TrainerInputError(f"{path}: architecture {arch!r} is not supported by the gguf trainer (supported: {', '.join(SUPPORTED)}); use the hf trainer")
        self.architecture = arch

        def key(name, default=None, required=False):
            value = f.get(f"{arch}.{name}", default)
            if value is None and required:
                raise TrainerInputError(f"{path}: metadata key {arch}.{name} is missing")
            if isinstance(value, list):
                if len(set(value)) != 1:
                    raise TrainerInputError(f"{path}: {arch}.{name} differs per layer ({value[:4]}...), which the gguf trainer does not support")
                value = value[0]
            return value

        self.n_embd = int(key("embedding_length", required=True))
        self.n_layer = int(key("block_count", required=True))
        self.n_head = int(key("attention.head_count", required=True))
        self.n_head_kv = int(key("attention.head_count_kv", self.n_head))
        self.head_dim_k = int(key("attention.key_length", self.n_embd // self.n_head))
        self.head_dim_v = int(key("attention.value_length", self.n_embd // self.n_head))
        self.eps = float(key("attention.layer_norm_rms_epsilon", 1e-5))
        self.rope_dim = int(key("rope.dimension_count", self.head_dim_k))
        self.freq_base = float(key("rope.freq_base", 10000.0))
        scaling = key("rope.scaling.type", "none")
        factor = float(key("rope.scaling.factor", 1.0) or 1.0)
        if scaling in ("none", None) or factor == 1.0:
            self.freq_scale = 1.0
        elif scaling == "linear":
            self.freq_scale = 1.0 / factor
        else:
            raise TrainerInputError(f"{path}: rope scaling {scaling!r} (factor {factor}) is not supported by the gguf trainer (none and linear are)")
        self.neox = ROPE_NEOX[arch]
        self.device = device
        self.dtype = dtype
        self.weights = weights
        try:
            f.check_types()  # every type is known before anything is loaded: the error names the tensor and its type
        except GgufError as error:
            raise TrainerInputError(str(error)) from None

        def load(name, optional=False, matrix=False):
            if name not in f.tensors:
                if optional:
                    return None
                raise TrainerInputError(f"{path}: tensor {name} is missing")
            try:
                if matrix:
                    return spade_weights.load_weight(f, f.tensors[name], device, dtype, weights)
                array = f.tensor(name)
            except GgufError as error:
                raise TrainerInputError(str(error)) from None
            return torch.from_numpy(array.copy()).to(device=device, dtype=dtype)

        self.token_embd = load("token_embd.weight", matrix=True)
        self.vocab_size = self.token_embd.shape[0]
        self.output_norm = load("output_norm.weight")
        self.output = load("output.weight", optional=True, matrix=True)
        if self.output is None:
            self.output = self.token_embd  # tied embeddings
        freqs = load("rope_freqs.weight", optional=True)
        self.rope_freqs = freqs.float() if freqs is not None else None
        self.layers = []
        names = ("attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm", "ffn_gate", "ffn_up", "ffn_down")
        for i in range(self.n_layer):
            layer = {n: load(f"blk.{i}.{n}.weight", matrix=n in self.LINEAR) for n in names}
            for n in ("attn_q", "attn_k", "attn_v", "attn_output"):
                layer[n + ".bias"] = load(f"blk.{i}.{n}.bias", optional=True)
            layer["attn_q_norm"] = load(f"blk.{i}.attn_q_norm.weight", optional=True)
            layer["attn_k_norm"] = load(f"blk.{i}.attn_k_norm.weight", optional=True)
            self.layers.append(layer)
        self.tensor_shapes = {f"blk.{i}.{n}.weight": tuple(self.layers[i][n].shape) for i in range(self.n_layer) for n in spade_grpo.TARGETS}
        self._rope_cache = {}

    def _rope_angles(self, n, device):
        """cos and sin of every RoPE angle of positions 0 .. n - 1 ([n, rope_dim / 2] each; a longer table already made serves)."""
        torch = _torch()
        for length, cached in self._rope_cache.items():
            if length >= n:
                return cached
        half = self.rope_dim // 2
        inv = self.freq_scale * self.freq_base ** (-2.0 * torch.arange(half, dtype=torch.float64) / self.rope_dim)
        if self.rope_freqs is not None:
            inv = inv / self.rope_freqs[:half].double().cpu()
        angles = torch.arange(n, dtype=torch.float64).unsqueeze(1) * inv.unsqueeze(0)
        cos, sin = torch.cos(angles).float().to(device), torch.sin(angles).float().to(device)
        self._rope_cache = {n: (cos, sin)}
        return cos, sin

    def _rope(self, x, cos, sin):
        """x: [rows, heads, head_dim], cos / sin: [rows, 1, rope_dim / 2]. Rotates the first rope_dim dims of each head as ggml_rope does."""
        torch = _torch()
        cos, sin = cos.to(x.dtype), sin.to(x.dtype)
        rot, rest = x[..., : self.rope_dim], x[..., self.rope_dim :]
        if self.neox:
            a, b = rot[..., : self.rope_dim // 2], rot[..., self.rope_dim // 2 :]
            out = torch.cat([a * cos - b * sin, a * sin + b * cos], dim=-1)
        else:
            a, b = rot[..., 0::2], rot[..., 1::2]
            out = torch.stack([a * cos - b * sin, a * sin + b * cos], dim=-1).flatten(-2)
        return torch.cat([out, rest], dim=-1) if rest.shape[-1] else out

    def _rms_norm(self, x, weight):
        torch = _torch()
        xf = x.float()
        normed = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return normed.to(x.dtype) * weight

    def hidden_states(self, tokens, lora=None):
        """The final normed hidden states of every position of `tokens` ([B, T] LongTensor), [B, T, n_embd].

        Sequences shorter than T are right-padded: causal attention never lets a real token see
        the padding after it, so each sequence's states are those of its own forward pass.
        """
        torch = _torch()
        every = torch.arange(tokens.shape[1], device=tokens.device)
        return torch.stack(self.hidden_at([(row, every) for row in tokens], lora))

    def hidden_at(self, sequences, lora=None):
        """For each (tokens, positions) pair: the final hidden states at the positions ([len(positions), n_embd]).

        The sequences go through one forward pass (spade_prefix: a prompt that several share is
        computed once), each cut after its last position. The output layer is left to
        spade_logprobs, which never holds positions x vocabulary at once. With gradients and
        `checkpointing`, each block's activations are recomputed in the backward pass instead of
        kept (memory for long sequences on a GPU).
        """
        torch = _torch()
        layout = spade_prefix.PrefixLayout(sequences, self.device)
        x = self.token_embd.rows(layout.tokens)
        cos, sin = self._rope_angles(int(layout.positions.max()) + 1, x.device)
        layout.cos, layout.sin = cos[layout.positions].unsqueeze(1), sin[layout.positions].unsqueeze(1)
        save_memory = self.checkpointing and torch.is_grad_enabled()
        # torch 1.x's non-reentrant checkpoint keeps every block's recomputed activations until the
        # backward pass ends (measured: no saving at all); the reentrant one frees each block's after
        # its own backward. It needs an input that requires grad: the frozen embedding's output gets one.
        reentrant = int(torch.__version__.split(".")[0]) < 2
        if save_memory and reentrant and not x.requires_grad:
            x = x.detach().requires_grad_()
        for i, layer in enumerate(self.layers):
            if save_memory:
                from torch.utils.checkpoint import checkpoint

                x = checkpoint(self._block, x, layout, i, layer, lora, use_reentrant=reentrant)
            else:
                x = self._block(x, layout, i, layer, lora)
        h = self._rms_norm(x[layout.gather], self.output_norm)
        return list(torch.split(h, layout.counts))

    def _block(self, x, layout, i, layer, lora):
        """One transformer block on the flat rows of `layout` ([rows, n_embd])."""
        torch = _torch()
        rows = x.shape[0]

        def proj(h, name):
            y = layer[name].matmul(h) if self.rounding is None else self.rounding.matmul(layer[name], h)
            bias = layer.get(name + ".bias")
            if bias is not None:
                y = y + bias
            if lora is not None:
                y = lora.apply(i, name, h, y)
            return y

        h = self._rms_norm(x, layer["attn_norm"])
        q = proj(h, "attn_q").view(rows, self.n_head, self.head_dim_k)
        k = proj(h, "attn_k").view(rows, self.n_head_kv, self.head_dim_k)
        v = proj(h, "attn_v").view(rows, self.n_head_kv, self.head_dim_v)
        if layer["attn_q_norm"] is not None:
            q = self._rms_norm(q, layer["attn_q_norm"])
        if layer["attn_k_norm"] is not None:
            k = self._rms_norm(k, layer["attn_k_norm"])
        q, k = self._rope(q, layout.cos, layout.sin), self._rope(k, layout.cos, layout.sin)
        if self.kv_f16 and self.rounding is None:
            # llama.cpp's default KV cache holds K and V as f16, and ggml's CPU matmul converts the other operand
            # (Q, then the attention weights) to f16 too: round the same values so the function is the same.
            q, k, v = round_f16(q), round_f16(k), round_f16(v)
        group = self.n_head // self.n_head_kv
        if group > 1:
            # ggml broadcasts kv head j to query heads j*group .. (j+1)*group - 1
            k = k.repeat_interleave(group, dim=1)
            v = v.repeat_interleave(group, dim=1)
        (q_pre, q_suf), (k_pre, k_suf), (v_pre, v_suf) = layout.split(q), layout.split(k), layout.split(v)
        parts = []
        if q_pre is not None:
            parts.append(self._attend(q_pre, k_pre, v_pre, layout.prefix_mask))
        parts.append(self._attend(q_suf, layout.suffix_keys(k_pre, k_suf), layout.suffix_keys(v_pre, v_suf), layout.suffix_mask))
        out = torch.cat([part.reshape(-1, self.n_head * self.head_dim_v) for part in parts])
        x = x + proj(out, "attn_output")
        h = self._rms_norm(x, layer["ffn_norm"])
        gate = torch.nn.functional.silu(proj(h, "ffn_gate"))
        return x + proj(gate * proj(h, "ffn_up"), "ffn_down")

    def _attend(self, q, k, v, mask):
        """Attention of q [B, T, heads, dk] over k, v [B, S, heads, d] with an additive mask ([T, S] or [B, 1, T, S]); [B, T, heads, dv]."""
        torch = _torch()
        if self.rounding is not None:
            return self.rounding.attend(q, k, v, mask, 1.0 / math.sqrt(self.head_dim_k))
        sdpa = getattr(torch.nn.functional, "scaled_dot_product_attention", None)
        if sdpa is not None and not self.kv_f16:
            # PyTorch 2.x: fused attention (no T x S score matrix kept); scale 1/sqrt(head_dim_k) as llama.cpp's
            return sdpa(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), attn_mask=mask.to(q.dtype)).transpose(1, 2)
        scores = torch.einsum("bthd,bshd->bhts", q.float(), k.float()) / math.sqrt(self.head_dim_k) + mask
        attn = torch.softmax(scores, dim=-1).to(v.dtype)
        if self.kv_f16:
            attn = round_f16(attn)
        return torch.einsum("bhts,bshd->bthd", attn, v)


class Lora:
    """LoRA matrices per adapted tensor: A (rank, in) and B (out, rank); delta W = alpha / rank * B @ A, as llama.cpp applies it."""

    def __init__(self, tensors, alpha, rank):
        self.tensors = tensors  # "blk.i.attn_q.weight" -> (A, B), float32 leaf tensors
        self.alpha = float(alpha)
        self.rank = int(rank)
        self.scale = self.alpha / self.rank
        self.enabled = True
        self._by_layer = {}
        for name, ab in tensors.items():
            _, i, target, _ = name.split(".")
            self._by_layer[(int(i), target)] = ab

    @classmethod
    def fresh(cls, model, rank, alpha, targets, seed):
        torch = _torch()
        generator = torch.Generator().manual_seed(seed)
        tensors = {}
        for i in range(model.n_layer):
            for target in targets:
                out_dim, in_dim = model.tensor_shapes[f"blk.{i}.{target}.weight"]
                bound = 1.0 / math.sqrt(in_dim)
                a = (torch.rand(rank, in_dim, generator=generator) * 2 - 1) * bound
                b = torch.zeros(out_dim, rank)
                tensors[f"blk.{i}.{target}.weight"] = (a.to(model.device).requires_grad_(), b.to(model.device).requires_grad_())
        return cls(tensors, alpha, rank)

    @classmethod
    def from_file(cls, path, model):
        torch = _torch()
        try:
            f = GgufFile(path)
        except GgufError as error:
            raise TrainerInputError(str(error)) from None
        if f.get("general.type") != "adapter" or f.get("adapter.type") != "lora":
            raise TrainerInputError(f"{path}: not a GGUF LoRA adapter (general.type = {f.get('general.type')!r}, adapter.type = {f.get('adapter.type')!r})")
        if f.get("general.architecture") != model.architecture:
            raise TrainerInputError(f"{path}: the adapter is for architecture {f.get('general.architecture')!r}, the base model is {model.architecture!r}")
        tensors, rank = {}, None
        for name in f.tensors:
            if name.endswith(".lora_a"):
                base = name[: -len(".lora_a")]
                if base + ".lora_b" not in f.tensors:
                    raise TrainerInputError(f"{path}: {name} has no matching .lora_b")
                if base not in model.tensor_shapes:
                    raise TrainerInputError(f"{path}: the adapter adapts {base}, which the gguf trainer does not train (it adapts {', '.join(spade_grpo.TARGETS)})")
                try:
                    a, b = f.tensor(name), f.tensor(base + ".lora_b")
                except GgufError as error:
                    raise TrainerInputError(str(error)) from None
                out_dim, in_dim = model.tensor_shapes[base]
                if a.shape[1] != in_dim or b.shape[0] != out_dim or a.shape[0] != b.shape[1]:
                    raise TrainerInputError(f"{path}: {base}: lora_a {list(reversed(a.shape))} / lora_b {list(reversed(b.shape))} do not fit the base tensor [{in_dim}, {out_dim}] (ggml order)")
                rank = a.shape[0] if rank is None else rank
                if a.shape[0] != rank:
                    raise TrainerInputError(f"{path}: the adapter mixes ranks ({rank} and {a.shape[0]})")
                tensors[base] = (torch.from_numpy(a.copy()).to(model.device).requires_grad_(), torch.from_numpy(b.copy()).to(model.device).requires_grad_())
            elif not name.endswith(".lora_b"):
                raise TrainerInputError(f"{path}: unexpected tensor {name} in a LoRA adapter")
        if not tensors:
            raise TrainerInputError(f"{path}: the adapter has no lora_a/lora_b tensors")
        alpha = f.get("adapter.lora.alpha") or rank  # llama.cpp: alpha 0 means scale 1
        return cls(tensors, alpha, rank)

    def parameters(self):
        for a, b in self.tensors.values():
            yield a
            yield b

    def apply(self, layer, target, x, y):
        ab = self._by_layer.get((layer, target))
        if ab is None or not self.enabled:
            return y
        a, b = ab
        return y + ((x.float() @ a.t()) @ b.t() * self.scale).to(y.dtype)

    def save(self, path, architecture, extra=None):
        metadata = {
            "general.architecture": architecture,
            "general.type": "adapter",
            "general.name": "spade-lora",
            "adapter.type": "lora",
            "adapter.lora.alpha": float(self.alpha),
        }
        metadata.update(extra or {})
        tensors = []
        order = lambda name: (int(name.split(".")[1]), spade_grpo.TARGETS.index(name.split(".")[2]))
        for name in sorted(self.tensors, key=order):
            a, b = self.tensors[name]
            tensors.append((name + ".lora_a", a.detach().float().cpu().numpy()))
            tensors.append((name + ".lora_b", b.detach().float().cpu().numpy()))
        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)
        partial = path + ".partial"
        write_gguf(partial, metadata, tensors)
        os.replace(partial, path)


class GgufPolicy:
    """The policy the GRPO round trains: the base model plus (optionally) a LoRA."""

    def __init__(self, model, lora, output_chunk=spade_logprobs.DEFAULT_CHUNK):
        self.model = model
        self.lora = lora
        self.output_chunk = output_chunk
        self.architecture = model.architecture
        self.vocab_size = model.vocab_size

    def logprobs(self, line, grad, adapter=True, definitions=(spade_logprobs.full(1.0),)):
        return self.logprobs_many([line], grad, adapter, lambda _: definitions)[0]

    def logprobs_many(self, lines, grad, adapter=True, definitions=lambda line: [spade_logprobs.full(1.0)]):
        """Per line, its trained tokens' log-probs under each of definitions(line), from one padded forward pass."""
        torch = _torch()
        device = self.model.device
        sequences = []
        for line in lines:
            tokens = torch.tensor(line.tokens, dtype=torch.long, device=device)
            trained = torch.tensor(line.trained, dtype=torch.long, device=device)
            sequences.append((tokens, trained - 1))
        lora = self.lora if adapter else None
        with torch.set_grad_enabled(grad):
            hidden = self.model.hidden_at(sequences, lora)
            # The output layer in the compute dtype (spade_logprobs slices it by positions, never by vocabulary).
            rounding = self.model.rounding
            if rounding is not None:  # the agreement check's emulation (no gradient, small models): whole logits rows, as llama.cpp's
                return [
                    [spade_logprobs.logprobs_from_logits(rounding.matmul(self.model.output, h), tokens[positions + 1], definition) for definition in definitions(line)]
                    for h, (tokens, positions), line in zip(hidden, sequences, lines)
                ]
            weight = self.model.output.dense()
            return [
                [spade_logprobs.logprobs(h, weight, tokens[positions + 1], definition, self.output_chunk) for definition in definitions(line)]
                for h, (tokens, positions), line in zip(hidden, sequences, lines)
            ]

    def trainable_parameters(self):
        return list(self.lora.parameters()) if self.lora else []


class GgufTrainer:
    name = "gguf"

    def __init__(self, device="auto", dtype="auto", base_model=None, checkpointing="auto", weights="quantized"):
        torch = _torch()
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = torch.device(device)
        if dtype == "auto":
            dtype = "bfloat16" if self.device.type == "cuda" and torch.cuda.is_bf16_supported() else "float32"
        self.dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dtype]
        # "auto": the train command's hyper.checkpointing decides; "on" / "off" override it
        self.checkpointing = None if checkpointing == "auto" else checkpointing == "on"
        self.weights = weights
        self.model = None
        self._key = None
        self._offloaded = False
        if base_model:
            self.model_for(base_model)
            self.release_device()

    @property
    def architecture(self):
        return self.model.architecture if self.model else None

    def model_for(self, path):
        try:
            st = os.stat(path)
        except OSError as error:
            raise TrainerInputError(f"{path}: cannot read the base model ({error.strerror})") from None
        key = (os.path.realpath(path), st.st_size, st.st_mtime_ns)
        if key == self._key and self._offloaded:
            spade_device.restore(self.model, self.device)
            self._offloaded = False
        if key != self._key:
            self.model = None
            spade_grpo.log(f"[gguf] loading {path} on {self.device} as {self.dtype}, weights {self.weights}")
            self.model = GgufModel(path, self.device, self.dtype, checkpointing=True if self.checkpointing is None else self.checkpointing, weights=self.weights)
            self._key = key
            self._offloaded = False
            m = self.model
            spade_grpo.log(f"[gguf] {m.architecture}: {m.n_layer} blocks, dim {m.n_embd}, {m.n_head} heads / {m.n_head_kv} kv, vocab {m.vocab_size}, rope {'neox' if m.neox else 'normal'} dim {m.rope_dim}")
        return self.model

    def release_device(self):
        """After a command on a GPU: the weights to host memory and the allocator emptied, so llama.cpp's reload has the card."""
        if self.model is None or self._offloaded or self.device.type != "cuda":
            return
        reserved = spade_device.offload(self.model, self.device)
        self._offloaded = True
        spade_grpo.log(f"[gguf] gave the GPU back: {reserved} bytes still reserved")

    def _lines(self, path):
        _, lines = spade_grpo.read_batch(path)
        if not lines:
            raise spade_grpo.BatchFormatError(f"{path}: the batch has no sequences")
        return lines

    def train(self, cmd, hyper, emit):
        try:
            self._train(cmd, hyper, emit)
        finally:
            self.release_device()

    def _train(self, cmd, hyper, emit):
        # Where a round's time goes (seconds per phase, in the metrics): model load, batch read, and the
        # adapter write here; the recomputation pass, the forward and backward passes and the optimiser in spade_step.
        clock = {"start": time.time()}
        model = self.model_for(cmd["baseModel"])
        clock["loaded"] = time.time()
        lines = self._lines(cmd["batch"])
        clock["read"] = time.time()
        spade_grpo.seed_everything(hyper["seed"])
        parent = cmd.get("parentAdapter")
        if parent:
            lora = Lora.from_file(parent, model)
            if lora.rank != hyper["rank"] or lora.alpha != float(hyper["alpha"]):
                spade_grpo.log(f"[gguf] continuing from {parent}: its rank {lora.rank} and alpha {lora.alpha} are kept (hyper asks {hyper['rank']} / {hyper['alpha']})")
        else:
            lora = Lora.fresh(model, hyper["rank"], hyper["alpha"], hyper["targets"], hyper["seed"])
        model.checkpointing = hyper["checkpointing"] if self.checkpointing is None else self.checkpointing
        parts = self._check_memory(model, [len(l.tokens) for l in lines], [len(l.trained) for l in lines], hyper)
        policy = GgufPolicy(model, lora, hyper["outputChunkTokens"])
        metrics = spade_step.train_round(policy, lines, hyper, emit, cmd["round"], spade_grpo.log, parent_adapter=parent, output=cmd["output"])
        clock["trained"] = time.time()
        metrics["memoryPredictedBytes"] = parts["peak"]
        lora.save(cmd["output"], model.architecture)
        clock["written"] = time.time()
        metrics.update({
            "loadSeconds": clock["loaded"] - clock["start"],
            "readSeconds": clock["read"] - clock["loaded"],
            "writeSeconds": clock["written"] - clock["trained"],
        })
        emit({"type": "metrics", "round": cmd["round"], "metrics": metrics})
        emit({"type": "adapter", "round": cmd["round"], "path": cmd["output"]})

    def _check_memory(self, model, lengths, trained, hyper):
        """The memory model's peak for this batch, logged, and refused when it does not fit the free memory."""
        checkpointing = hyper["checkpointing"] if self.checkpointing is None else self.checkpointing
        settings = dict(hyper, checkpointing=checkpointing)
        weights = spade_memory.held_weight_bytes(model)
        dtype_bytes = _torch().empty((), dtype=model.dtype).element_size()
        working = spade_memory.layer_working_bytes(model, dtype_bytes)
        parts = spade_memory.predict(spade_memory.shape_of(model), lengths, trained, settings, dtype_bytes, weights, working, fused_attention=not model.kv_f16 and self.device.type == "cuda")
        free = spade_memory.free_memory(self.device)
        # the weights are already held: what must fit in the free memory is the rest
        available = None if free is None else free + weights
        spade_grpo.log("[gguf] " + spade_memory.describe(parts, available, str(self.device)))
        spade_memory.check(parts, available, settings, str(self.device))
        return parts

    def memory(self, cmd, hyper, emit):
        """The largest round a run can give (a micro-batch of microBatchTokens, or one sequence of `longest` tokens), before any rollout."""
        model = self.model_for(cmd["baseModel"])
        lengths, trained = spade_memory.worst_case(cmd["longest"], hyper)
        parts = self._check_memory(model, lengths, trained, hyper)
        free = spade_memory.free_memory(self.device)
        emit({"type": "memory", **spade_memory.report(parts, None if free is None else free + spade_memory.held_weight_bytes(model))})

    def logprobs(self, cmd, emit):
        try:
            self._logprobs(cmd, emit)
        finally:
            self.release_device()

    def _logprobs(self, cmd, emit):
        model = self.model_for(cmd["baseModel"])
        lines = self._lines(cmd["batch"])
        spade_grpo.check_vocab(lines, model.vocab_size)
        lora = Lora.from_file(cmd["adapter"], model) if cmd.get("adapter") else None
        try:
            model.rounding = spade_llama_rounding.rounding_for(cmd.get("rounding"))
            values = spade_step.recompute(GgufPolicy(model, lora), lines, spade_step.recorded_definition, spade_grpo.DEFAULT_HYPER["microBatchTokens"])
        except spade_llama_rounding.RoundingError as error:
            raise TrainerInputError(f"{cmd['baseModel']}: {error}") from None
        finally:
            model.rounding = None
        recorded = [x for line in lines for x in line.trained_behavior()]
        if any(x is not None for x in recorded):
            emit({"type": "mismatch", **spade_grpo.measure_mismatch(recorded, [x for v in values for x in v])})
        spade_grpo.write_logprobs(cmd["output"], lines, values)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worker", action="store_true", help="run the persistent line-protocol worker on stdin/stdout")
    parser.add_argument("--device", default="auto", help="auto (cuda when available), cpu, cuda, cuda:1, ...")
    parser.add_argument("--dtype", default="auto", choices=["auto", "float32", "bfloat16", "float16"], help="base weights' compute type; auto: bfloat16 on a GPU that has it, else float32")
    parser.add_argument("--threads", type=int, default=0, help="CPU threads for PyTorch (0: its default)")
    parser.add_argument("--checkpointing", default="auto", choices=["auto", "on", "off"], help="recompute each block's activations in the backward pass (memory); auto: as the train command's hyper.checkpointing (default on)")
    parser.add_argument("--weights", default="quantized", choices=list(spade_weights.HOLDINGS), help="base weights on the device: quantized (GGUF bytes, dequantised per layer in the forward and backward pass) or full (a dequantised copy, faster where it fits)")
    parser.add_argument("--base-model", default=None, help="GGUF base model (worker: loaded at start)")
    parser.add_argument("--batch", default=None, help="one-shot: the batch JSONL")
    parser.add_argument("--output", default=None, help="one-shot: the adapter GGUF to write")
    parser.add_argument("--parent-adapter", default=None, help="one-shot: continue from this GGUF LoRA")
    parser.add_argument("--hyper", default="{}", help="one-shot: the hyper object as JSON")
    parser.add_argument("--round", type=int, default=1)
    args = parser.parse_args(argv)
    torch = _torch()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    emit = spade_grpo.Emitter()
    if args.worker:
        spade_grpo.log(f"[gguf] warmed up PyTorch in {spade_warmup.warm_up(torch):.2f} s")
        try:
            trainer = GgufTrainer(args.device, args.dtype, args.base_model, args.checkpointing, args.weights)
        except TrainerInputError as error:
            emit({"type": "error", "round": None, "message": str(error)})
            return 2
        return spade_grpo.serve(trainer, emit=emit)
    if not (args.batch and args.base_model and args.output):
        parser.error("give --worker, or --batch, --base-model and --output")
    line = json.dumps({"type": "train", "round": args.round, "batch": args.batch, "baseModel": args.base_model, "parentAdapter": args.parent_adapter, "output": args.output, "hyper": json.loads(args.hyper)})
    failed = []
    spade_grpo.serve(GgufTrainer(args.device, args.dtype, checkpointing=args.checkpointing, weights=args.weights), stdin=[line], emit=lambda obj: (failed.append(obj) if obj["type"] == "error" else None, emit(obj)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
