"""llama.cpp's CPU rounding, emulated: a verification mode of the gguf trainer's forward pass.

The trainer computes the model's function in float32 from the dequantised weights. llama.cpp's CPU
backend computes a slightly different function: before a matrix product with a quantised weight it
rounds the *activations* to an 8-bit block type, and its attention rounds Q, K, V and its running
output to f16. At a realistic logit spread those roundings, not the weights, make up the gap between
the trainer's log-probs and llama.cpp's (0.01-0.05 nats on average for the 8-bit types). With this
mode on, the trainer rounds the same values the same way; what is left is the emulation's floor:
a value within float noise of a rounding step rounds either way, and the step is carried on by
every later rounding (measured by "llama-cpu-perturbed", see MODES).

It is switched on only by the agreement check (the `logprobs` command's `rounding: "llama-cpu"`,
the quantisation bench and tests/integration/trainerQuants.test.ts), never in training: the
gradient of a rounding is meaningless, and the trainer's function is the exact one.

What is emulated is what llama.cpp (node-llama-cpp 3.21's build, its release v0.4.0) does on an
x86 CPU with AVX-512 VNNI and AMX (`libggml-cpu-sapphirerapids`, the variant ggml loads on this
machine), read from ggml-cpu's sources:

- A weight of Q4_0, Q4_1, Q8_0, Q4_K, Q5_K, Q6_K (and F16) whose row count is a multiple of 32 is
  repacked into the AMX buffer (`amx/mmq.cpp`): the activations are quantised to the type's
  `vec_dot_type` (q8_0 for Q4_0 / Q8_0, q8_1 for Q4_1, q8_K through `quantize_row_q8_K_ref` for the
  K-quants) and the products are exact integer dot products scaled by the blocks' scales. F16
  weights there run an AVX-512 kernel on float32 activations: no rounding.
- Q2_K is repacked to q2_K_8x8 (`repack.cpp`), activations to q8_K (`ggml_quantize_mat_q8_K_4x8`,
  the same values as the reference q8_K).
- Q5_0, Q5_1, Q3_K and BF16 stay in the plain CPU buffer: `ggml_compute_forward_mul_mat` converts
  the activations to the weight's `vec_dot_type` (q8_0, q8_1, q8_K, bf16) before llamafile's sgemm
  or the vec_dot loop.
- F32 weights: no rounding. The token embedding is a row lookup (`get_rows`): exact.
- On an x86 CPU without AMX-INT8 there is no AMX buffer: F16 weights take llamafile's sgemm, which
  needs f16 activations (vec_dot_type f16); the other types keep their rounding (the repacked
  q4_0 / q4_K / q2_K / q8_0 kernels quantise the activations to the same blocks). Other
  architectures (ARM) are not emulated.
- Attention: node-llama-cpp leaves flash attention on "auto", which resolves to on, with the KV
  cache in f16. A micro-batch of fewer than 64 query rows (token-by-token decoding, and any
  evaluation of a short sequence) takes `ggml_compute_forward_flash_attn_ext_f16_one_chunk`: Q is
  rounded to f16, each score is an f16 x f16 dot product summed in float32, and the keys are visited
  in order with an online softmax whose output accumulator is f16, rounded after every rescale and
  every added value row; the sum is divided out at the end. 64 query rows or more take the tiled
  path instead (`ggml_compute_forward_flash_attn_ext_tiled`: Q kept in float32, float32 softmax and
  accumulator, only K and V in f16), which is not emulated: the checks evaluate shorter sequences.
- The output layer is an ordinary product with `output.weight` (rounded as its type says); the
  logits' softmax is float32.

Block quantisers (`ggml-cpu/arch/x86/quants.c`, `ggml-quants.c`):
- q8_0 / q8_1 (32 values): amax = max |x|; the stored scale is f16(amax / 127), the values are
  round-half-even(x * (127 / amax)) computed with the unrounded factor.
- q8_K (256 values): m = the value of largest magnitude; q = min(127, round-half-even(x * -127 / m)),
  scale -m / 127 kept in float32.
q8_1 also stores s = f16(d * sum(q)) (d unrounded): Q4_1 / Q5_1's block minimum multiplies it.
"""
import torch

#: The activation rounding in front of a matrix product with a weight of each ggml type id, on this build and CPU.
ACTIVATION_ROUNDING = {
    0: None,  # F32: float32 sgemm
    1: None,  # F16: AMX buffer, AVX-512 kernel on float32 activations (f16 without AMX: see activation_rounding)
    30: "bf16",  # BF16: vec_dot_type bf16
    2: "q8_0",  # Q4_0 (AMX)
    3: "q8_1",  # Q4_1 (AMX)
    6: "q8_0",  # Q5_0 (vec_dot_type)
    7: "q8_1",  # Q5_1 (vec_dot_type)
    8: "q8_0",  # Q8_0 (AMX)
    10: "q8_K",  # Q2_K (repack q2_K_8x8)
    11: "q8_K",  # Q3_K (vec_dot_type)
    12: "q8_K",  # Q4_K (AMX)
    13: "q8_K",  # Q5_K (AMX)
    14: "q8_K",  # Q6_K (AMX)
}

def cpu_has_amx(cpuinfo="/proc/cpuinfo"):
    """Whether this CPU has AMX-INT8 with AVX-512 VNNI (ggml's condition for its AMX buffer); False where it cannot tell."""
    try:
        with open(cpuinfo) as f:
            flags = set(f.read().split())
    except OSError:
        return False
    return {"amx_int8", "avx512_vnni"} <= flags


def activation_rounding(type_id, amx=True):
    """The rounding in front of a product with a weight of `type_id` (a key of _ROUNDERS) on a CPU with or without AMX."""
    if type_id == 1 and not amx:
        return "f16"
    return ACTIVATION_ROUNDING.get(type_id)


#: The names the `logprobs` command accepts for its `rounding` field: the emulation, and the same emulation with every
#: rounded value first moved by float noise (a relative 2^-22, about the float32 summation-order noise of one matmul).
#: The gap between the two is the floor any emulation reaches: a rounding decision flips when a value sits within float
#: noise of a step, and a flip moves the value by one step (1/127 of the block's largest for the 8-bit types), which
#: the next roundings carry on.
MODES = ("llama-cpu", "llama-cpu-perturbed")
PERTURBATION = 2.0 ** -22


class RoundingError(ValueError):
    """A `rounding` value the trainer does not emulate, or a model it cannot emulate it on."""


def _blocks(x, size):
    if x.shape[-1] % size:
        raise ValueError(f"activation rows of {x.shape[-1]} values are not whole blocks of {size}")
    return x.reshape(*x.shape[:-1], x.shape[-1] // size, size)


def _q8_blocks(x):
    """x's q8_0 / q8_1 blocks of 32: the integers q, the unrounded scale amax / 127 and the stored f16 one ([..., blocks, 1])."""
    b = _blocks(x.float(), 32)
    amax = b.abs().amax(dim=-1, keepdim=True)
    d = amax / 127.0
    factor = torch.where(amax > 0, 127.0 / torch.where(amax > 0, amax, torch.ones_like(amax)), torch.zeros_like(amax))
    q = torch.round(b * factor)  # round half to even, as _mm256_round_ps(_MM_ROUND_NEAREST)
    return q, d, d.to(torch.float16).float()


def round_q8_0(x):
    """x as llama.cpp's q8_0 (or q8_1) blocks of 32 give it back: q * f16(amax / 127)."""
    q, _, d16 = _q8_blocks(x)
    return (q * d16).reshape(x.shape).to(x.dtype)


def q8_1_sum_error(x):
    """Per block of 32, q8_1's stored s = f16(d * sum q) minus the sum its values have (f16(d) * sum q), [..., blocks]."""
    q, d, d16 = _q8_blocks(x)
    total = q.sum(dim=-1)
    return (total * d.squeeze(-1)).to(torch.float16).float() - total * d16.squeeze(-1)


#: Q4_1 and Q5_1 (the types whose products use q8_1's s): bytes per block and the offset of the block's f16 minimum m.
_MIN_FIELDS = {3: (20, 2), 7: (24, 2)}


def block_minimums(weight):
    """The f16 minimum m of each block of a Q4_1 / Q5_1 weight held quantised, [rows, blocks]."""
    size, offset = _MIN_FIELDS[weight.type_id]
    raw = getattr(weight, "raw", None)
    if raw is None:
        raise RoundingError("the llama-cpu rounding of a Q4_1 / Q5_1 weight needs it held quantised (--weights quantized): its block minimums are read from the bytes")
    blocks = raw.reshape(raw.shape[0], -1, size)[:, :, offset : offset + 2]
    return blocks.contiguous().view(torch.float16).squeeze(-1).float()


def round_q8_k(x):
    """x as llama.cpp's q8_K blocks of 256 give it back: q * (1 / iscale) with iscale = -127 / (signed max)."""
    b = _blocks(x.float(), 256)
    index = b.abs().argmax(dim=-1, keepdim=True)  # the first of equal magnitudes, as the reference loop's strict >
    signed_max = b.gather(-1, index)
    safe = torch.where(signed_max != 0, signed_max, torch.ones_like(signed_max))
    iscale = torch.where(signed_max != 0, -127.0 / safe, torch.zeros_like(safe))
    q = torch.round(b * iscale).clamp(max=127)  # nearest_int: round half to even
    d = torch.where(iscale != 0, 1.0 / torch.where(iscale != 0, iscale, torch.ones_like(iscale)), torch.zeros_like(iscale))
    return (q * d).reshape(x.shape).to(x.dtype)


def round_bf16(x):
    return x.to(torch.bfloat16).to(x.dtype)


def round_f16(x):
    return x.to(torch.float16).to(x.dtype)


_ROUNDERS = {None: None, "q8_0": round_q8_0, "q8_1": round_q8_0, "q8_K": round_q8_k, "bf16": round_bf16, "f16": round_f16}


def attend_one_chunk(q, k, v, mask, scale):
    """ggml's CPU flash attention for fewer than 64 query rows, emulated.

    q [B, T, heads, dk], k / v [B, S, heads, d] (kv heads already broadcast), mask additive ([T, S]
    or [B, 1, T, S], -inf where a key is hidden); returns [B, T, heads, dv] in float32. Keys are
    visited in order; the output accumulator is rounded to f16 after each step, as VKQ16 is.
    """
    q16, k16, v16 = round_f16(q.float()), round_f16(k.float()), round_f16(v.float())
    scores = torch.einsum("bthd,bshd->bhts", q16, k16) * scale + mask  # [B, H, T, S]
    values = v16.permute(0, 2, 1, 3)  # [B, H, S, dv]
    batch, heads, rows, keys = scores.shape
    top = torch.full((batch, heads, rows), float("-inf"), device=q.device)
    total = torch.zeros((batch, heads, rows), device=q.device)
    acc = torch.zeros((batch, heads, rows, values.shape[-1]), device=q.device)
    for j in range(keys):
        s = scores[..., j]
        seen = s != float("-inf")
        higher = seen & (s > top)
        # a new maximum rescales what is accumulated (ms) and adds this value at weight 1; else weight exp(s - M)
        ms = torch.where(higher, torch.exp(top - s), torch.ones_like(s))
        vs = torch.where(higher, torch.ones_like(s), torch.where(seen, torch.exp(s - top), torch.zeros_like(s)))
        top = torch.where(higher, s, top)
        acc = torch.where(higher.unsqueeze(-1), round_f16(acc * ms.unsqueeze(-1)), acc)
        acc = torch.where(seen.unsqueeze(-1), round_f16(acc + values[:, :, j].unsqueeze(2) * vs.unsqueeze(-1)), acc)
        total = total * ms + vs
    inverse = torch.where(total == 0, torch.zeros_like(total), 1.0 / torch.where(total == 0, torch.ones_like(total), total))
    return (acc * inverse.unsqueeze(-1)).permute(0, 2, 1, 3)


class LlamaCpuRounding:
    """The emulation the forward pass consults when it is switched on (GgufModel.rounding)."""

    def __init__(self, perturbation=0.0, seed=0, amx=None):
        self.amx = cpu_has_amx() if amx is None else amx
        self.perturbation = perturbation
        self._generator = torch.Generator().manual_seed(seed) if perturbation else None

    def _moved(self, x):
        if not self.perturbation:
            return x
        noise = torch.randn(x.shape, generator=self._generator).to(x.device, x.dtype)
        return x * (1 + self.perturbation * noise)

    def matmul(self, weight, x):
        """x @ W.T as llama.cpp's CPU backend computes it: the activations rounded as the weight's type has them, and for Q4_1 / Q5_1 the block
        minimums times q8_1's stored f16 sums (d_w * d_x * sum(q_w q_x) + m_w * s_x per block)."""
        rounder = _ROUNDERS[activation_rounding(weight.type_id, self.amx)]
        if rounder is None:
            return weight.matmul(x)
        moved = self._moved(x)
        y = weight.matmul(rounder(moved))
        if weight.type_id in _MIN_FIELDS:
            y = y + (q8_1_sum_error(moved) @ block_minimums(weight).t()).to(y.dtype)
        return y

    def attend(self, q, k, v, mask, scale):
        return attend_one_chunk(self._moved(q), self._moved(k), self._moved(v), mask, scale).to(v.dtype)


def rounding_for(name):
    """The emulation a `logprobs` command names (None: the trainer's exact function)."""
    if name is None:
        return None
    if name not in MODES:
        raise RoundingError(f"rounding {name!r} is not emulated (expected null or one of {', '.join(MODES)})")
    return LlamaCpuRounding(PERTURBATION if name == "llama-cpu-perturbed" else 0.0)
