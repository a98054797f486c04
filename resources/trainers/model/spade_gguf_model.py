"""The gguf trainer's base model: hyperparameters and weights from a GGUF file, and llama.cpp's forward pass.

The llama family as llama.cpp computes it (llama: RMSNorm, RoPE with adjacent pairs, GQA, SwiGLU;
qwen2: q/k/v biases and neox RoPE; qwen3: q/k RMSNorm and neox RoPE), over the flat rows of a
spade_prefix layout, with LoRA applied by the caller's adapter (spade_lora) on the projections.
The output layer is left to spade_logprobs (through spade_gguf_policy).
"""
import math

import torch

from step import spade_grpo
from model import spade_prefix
from model import spade_weights
from model.spade_gguf import GgufError, GgufFile
from step.spade_grpo import TrainerInputError

SUPPORTED = ("llama", "qwen2", "qwen3")
# llama.cpp's rope type per architecture: llama rotates adjacent pairs (LLAMA_ROPE_TYPE_NORM), the qwen family the two halves (NEOX).
ROPE_NEOX = {"llama": False, "qwen2": True, "qwen3": True}


class _RoundF16(torch.autograd.Function):
    @staticmethod
    def forward(ctx, value):
        return value.to(torch.float16).to(value.dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad


def round_f16(x):
    """x rounded to float16 precision (llama.cpp's f16 KV cache); the gradient passes straight through."""
    return _RoundF16.apply(x)


class GgufModel:
    """The base model: hyperparameters and weights from a GGUF file, and llama.cpp's forward pass."""

    #: the projections (and the embedding / output matrices) whose weights are held as `weights` says; norms and biases are small and kept dense
    LINEAR = ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down")

    def __init__(self, path, device, dtype, kv_f16=None, checkpointing=None, weights="quantized"):
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
        xf = x.float()
        normed = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return normed.to(x.dtype) * weight

    def hidden_states(self, tokens, lora=None):
        """The final normed hidden states of every position of `tokens` ([B, T] LongTensor), [B, T, n_embd].

        Sequences shorter than T are right-padded: causal attention never lets a real token see
        the padding after it, so each sequence's states are those of its own forward pass.
        """
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
        if self.rounding is not None:
            return self.rounding.attend(q, k, v, mask, 1.0 / math.sqrt(self.head_dim_k))
        sdpa = getattr(torch.nn.functional, "scaled_dot_product_attention", None)
        if sdpa is not None and not self.kv_f16:
            # PyTorch 2.x: fused attention (no T x S score matrix kept); scale 1/sqrt(head_dim_k) as llama.cpp's
            return sdpa(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), attn_mask=mask.to(q.dtype)).transpose(1, 2)
        return _Attention.apply(q, k, v, mask, 1.0 / math.sqrt(self.head_dim_k), self.kv_f16)


class _Attention(torch.autograd.Function):
    """softmax(q k^T x scale + mask) v for q [B, T, heads, dk], k, v [B, S, heads, d]; [B, T, heads, dv].

    The attention weights computed in float32, as ggml's soft_max, and rounded to f16 where
    `round_weights` says (llama.cpp's CPU matmul converts them to the f16 of the KV cache). The
    weights are one [B, heads, T, S] tensor, scaled, masked, normalised and rounded in place, and
    kept for the backward pass, which makes one more (their gradient, turned into the scores'
    gradient in place): two such tensors at a time, against six in the forward and four in the
    backward pass of the same composed from separate operations (each a fresh mapping of the
    trainer's allocator, page by page: spade_memory's ACT_ATTN counts what is left). The rounding
    passes gradients straight through; the softmax's backward uses the weights as kept (rounded),
    whose row-wise dot with their gradient is that of the output with its own (FlashAttention's D).
    """

    @staticmethod
    def forward(ctx, q, k, v, mask, scale, round_weights):
        qh, kh, vh = q.float().transpose(1, 2), k.float().transpose(1, 2), v.float().transpose(1, 2)
        weights = torch.matmul(qh, kh.transpose(-1, -2))
        weights.mul_(scale).add_(mask)
        torch.softmax(weights, -1, out=weights)
        if round_weights:
            weights.copy_(weights.to(torch.float16))
        out = torch.matmul(weights, vh)
        ctx.save_for_backward(qh, kh, vh, weights, out)
        ctx.scale = scale
        ctx.dtypes = (q.dtype, k.dtype, v.dtype)
        return out.transpose(1, 2).to(v.dtype)

    @staticmethod
    def backward(ctx, grad):
        qh, kh, vh, weights, out = ctx.saved_tensors
        go = grad.float().transpose(1, 2)
        grad_v = torch.matmul(weights.transpose(-1, -2), go)
        grad_scores = torch.matmul(go, vh.transpose(-1, -2))
        grad_scores.sub_((go * out).sum(-1, keepdim=True)).mul_(weights)
        grad_q = torch.matmul(grad_scores, kh).mul_(ctx.scale)
        grad_k = torch.matmul(grad_scores.transpose(-1, -2), qh).mul_(ctx.scale)
        grads = (g.transpose(1, 2).to(dtype) for g, dtype in zip((grad_q, grad_k, grad_v), ctx.dtypes))
        return (*grads, None, None, None)
