"""ggml's tensor storage types, dequantised in PyTorch (on whatever device holds the bytes).

One table entry per type (`QUANT_TYPES`: type id -> name, elements per block, bytes per block,
dequantise function) and one function per type, written from the block layouts of ggml's
`ggml-common.h` / `ggml-quants.c` (the same layouts llama.cpp's gguf-py reads). Each function takes
a uint8 tensor of whole blocks, shaped (blocks, bytes per block), and returns float32 values shaped
(blocks, elements per block), on the tensor's own device: the trainer can keep a model's weights
as their GGUF bytes on the GPU and dequantise one layer at a time.

Every type here is checked against llama.cpp on the same bytes (tests/integration/trainerQuants.test.ts).
"""
from collections import namedtuple

import torch

QuantType = namedtuple("QuantType", "name block_size type_size dequantize")

QK_K = 256  # elements per K-quant super-block


class UnsupportedTypeError(ValueError):
    """A tensor whose ggml type the trainer cannot dequantise."""


def _f16(raw):
    """Little-endian f16 fields ([..., 2k] uint8) as float32 ([..., k])."""
    return raw.contiguous().view(torch.float16).float()


def _f32(blocks):
    return blocks.contiguous().view(torch.float32)


def _bf16(blocks):
    halves = blocks.contiguous().view(torch.int16).to(torch.int32) & 0xFFFF
    return (halves << 16).view(torch.float32)


def _q8_0(blocks):  # d: f16, qs: 32 x int8
    d = _f16(blocks[:, :2])
    return blocks[:, 2:].contiguous().view(torch.int8).float() * d


def _nibbles(qs):
    """16 bytes of nibbles -> 32 values: the low nibbles are elements 0..15, the high ones 16..31."""
    return torch.cat([qs & 0x0F, qs >> 4], dim=1).float()


def _q4_0(blocks):  # d: f16, qs: 16 bytes of nibbles; value = d * (q - 8)
    return (_nibbles(blocks[:, 2:]) - 8.0) * _f16(blocks[:, :2])


def _q4_1(blocks):  # d: f16, m: f16, qs: 16 bytes; value = d * q + m
    return _nibbles(blocks[:, 4:]) * _f16(blocks[:, :2]) + _f16(blocks[:, 2:4])


def _fifth_bits(qh):
    """qh (4 bytes, a little-endian u32) -> the 5th bit of each of the 32 values, as 0 or 16."""
    shifts = torch.arange(8, device=qh.device, dtype=torch.uint8)
    return (((qh.unsqueeze(-1) >> shifts) & 1) << 4).reshape(-1, 32).float()  # bit k of the u32 is bit k % 8 of byte k // 8


def _q5_0(blocks):  # d: f16, qh: u32, qs: 16 bytes; value = d * ((nibble | bit << 4) - 16)
    return (_nibbles(blocks[:, 6:]) + _fifth_bits(blocks[:, 2:6]) - 16.0) * _f16(blocks[:, :2])


def _q5_1(blocks):  # d: f16, m: f16, qh: u32, qs: 16 bytes; value = d * (nibble | bit << 4) + m
    return (_nibbles(blocks[:, 8:]) + _fifth_bits(blocks[:, 4:8])) * _f16(blocks[:, :2]) + _f16(blocks[:, 2:4])


def _scale_min_k4(scales):
    """The 8 (scale, min) pairs of 6 bits packed in a Q4_K / Q5_K block's 12 scale bytes, as float32 [blocks, 8] each."""
    s = scales.to(torch.int32)
    low_sc, low_m, high = s[:, 0:4], s[:, 4:8], s[:, 8:12]
    sc = torch.cat([low_sc & 63, (high & 0x0F) | ((low_sc >> 6) << 4)], dim=1)
    m = torch.cat([low_m & 63, (high >> 4) | ((low_m >> 6) << 4)], dim=1)
    return sc.float(), m.float()


def _q4_k(blocks):  # d, dmin: f16; scales: 12 bytes (8 x 6-bit scale and min); qs: 128 bytes
    d, dmin = _f16(blocks[:, 0:2]), _f16(blocks[:, 2:4])
    sc, m = _scale_min_k4(blocks[:, 4:16])
    qs = blocks[:, 16:144].reshape(-1, 4, 1, 32)  # chunk of 64 values: low nibbles are the first 32, high the next 32
    q = torch.cat([qs & 0x0F, qs >> 4], dim=2).float().reshape(-1, 8, 32)
    return (q * (d * sc).unsqueeze(-1) - (dmin * m).unsqueeze(-1)).reshape(-1, QK_K)


def _q5_k(blocks):  # d, dmin: f16; scales: 12 bytes; qh: 32 bytes (bit 2c+h of byte l); qs: 128 bytes
    d, dmin = _f16(blocks[:, 0:2]), _f16(blocks[:, 2:4])
    sc, m = _scale_min_k4(blocks[:, 4:16])
    qs = blocks[:, 48:176].reshape(-1, 4, 1, 32)
    low = torch.cat([qs & 0x0F, qs >> 4], dim=2).reshape(-1, 8, 32)
    qh = blocks[:, 16:48].reshape(-1, 1, 32)
    shifts = torch.arange(8, device=blocks.device, dtype=torch.uint8).reshape(1, 8, 1)
    q = (low | (((qh >> shifts) & 1) << 4)).float()
    return (q * (d * sc).unsqueeze(-1) - (dmin * m).unsqueeze(-1)).reshape(-1, QK_K)


def _q6_k(blocks):  # ql: 128 bytes, qh: 64 bytes, scales: 16 x int8, d: f16
    ql = blocks[:, 0:128].reshape(-1, 2, 2, 1, 32)  # [half of 128 values][first / second 32 bytes]
    qh = blocks[:, 128:192].reshape(-1, 2, 1, 32)
    sc = blocks[:, 192:208].contiguous().view(torch.int8).float()
    d = _f16(blocks[:, 208:210])
    # per half of 128 values, four runs of 32: ql[0:32] low, ql[32:64] low, ql[0:32] high, ql[32:64] high,
    # with the 2 high bits from qh[0:32] at shifts 0, 2, 4, 6
    low = torch.cat([ql & 0x0F, ql >> 4], dim=2).reshape(-1, 2, 4, 32)  # order: low(ql0), low(ql1), high(ql0), high(ql1)
    shifts = torch.tensor([0, 2, 4, 6], device=blocks.device, dtype=torch.uint8).reshape(1, 1, 4, 1)
    high = (qh >> shifts) & 3
    q = (low | (high << 4)).float() - 32.0  # [blocks, 2, 4, 32]
    scale = (d * sc).reshape(-1, 2, 4, 2, 1)  # 16 scales, one per 16 values
    return (q.reshape(-1, 2, 4, 2, 16) * scale).reshape(-1, QK_K)


def _two_bit_runs(qs):
    """Q2_K / Q3_K: 64 bytes of 2-bit fields -> 256 values. For each half of 128 values, 32 bytes
    are read four times (shifts 0, 2, 4, 6), 32 values each."""
    q = qs.reshape(-1, 2, 1, 32)
    shifts = torch.tensor([0, 2, 4, 6], device=qs.device, dtype=torch.uint8).reshape(1, 1, 4, 1)
    return (q >> shifts) & 3  # [blocks, half, shift, 32]


def _q2_k(blocks):  # scales: 16 bytes (low 4 bits scale, high 4 bits min); qs: 64 bytes; d, dmin: f16
    scales = blocks[:, 0:16]
    d, dmin = _f16(blocks[:, 80:82]), _f16(blocks[:, 82:84])
    q = _two_bit_runs(blocks[:, 16:80]).float().reshape(-1, 16, 16)
    dl = (d * (scales & 0x0F).float()).unsqueeze(-1)
    ml = (dmin * (scales >> 4).float()).unsqueeze(-1)
    return (q * dl - ml).reshape(-1, QK_K)


def _q3_k_scales(raw):
    """16 signed 6-bit scales from 12 bytes: low 4 bits in bytes 0..7 (low then high nibble), high 2 bits in bytes 8..11."""
    s = raw.to(torch.int32)
    low = torch.cat([s[:, 0:8] & 0x0F, s[:, 0:8] >> 4], dim=1)
    high = torch.cat([(s[:, 8:12] >> shift) & 3 for shift in (0, 2, 4, 6)], dim=1)
    return (low | (high << 4)).float() - 32.0


def _q3_k(blocks):  # hmask: 32 bytes, qs: 64 bytes, scales: 12 bytes, d: f16
    hmask = blocks[:, 0:32].reshape(-1, 1, 1, 32)
    d = _f16(blocks[:, 108:110])
    low = _two_bit_runs(blocks[:, 32:96]).to(torch.int16)
    # the high bit of value (half h, run j, byte l) is bit 4h + j of hmask[l]; a clear bit subtracts 4
    bit = torch.arange(8, device=blocks.device, dtype=torch.uint8).reshape(1, 2, 4, 1)
    high = ((hmask >> bit) & 1).to(torch.int16)
    q = (low - 4 * (1 - high)).float().reshape(-1, 16, 16)
    scales = _q3_k_scales(blocks[:, 96:108])
    return (q * (d * scales).unsqueeze(-1)).reshape(-1, QK_K)


#: ggml type id -> its layout and dequantiser (ggml.h ids; block sizes from ggml-common.h).
QUANT_TYPES = {
    0: QuantType("F32", 1, 4, None),
    1: QuantType("F16", 1, 2, None),
    30: QuantType("BF16", 1, 2, None),
    2: QuantType("Q4_0", 32, 18, _q4_0),
    3: QuantType("Q4_1", 32, 20, _q4_1),
    6: QuantType("Q5_0", 32, 22, _q5_0),
    7: QuantType("Q5_1", 32, 24, _q5_1),
    8: QuantType("Q8_0", 32, 34, _q8_0),
    10: QuantType("Q2_K", QK_K, 84, _q2_k),
    11: QuantType("Q3_K", QK_K, 110, _q3_k),
    12: QuantType("Q4_K", QK_K, 144, _q4_k),
    13: QuantType("Q5_K", QK_K, 176, _q5_k),
    14: QuantType("Q6_K", QK_K, 210, _q6_k),
}

_STORED_AS = {0: torch.float32, 1: torch.float16, 30: torch.bfloat16}
_FLOATS = {0: (4, _f32), 1: (2, lambda raw: raw.contiguous().view(torch.float16).float()), 30: (2, _bf16)}


#: The resident peak of dequantising one tensor (or one block of spade_weights.DEQUANT_CHUNK values), in copies of its result, by type: (float32 result, bfloat16 result). The
#: dequantisers' intermediate arrays (unpacked scales, nibbles, high bits) live beside the result until it is returned; a
#: bfloat16 result is computed in float32 and converted. Measured with glibc's mmap threshold fixed (the trainer
#: worker's): 4864 x 896 values, every type.
DEQUANT_PEAK = {
    "F32": (1.0, 1.0), "F16": (1.0, 3.0), "BF16": (2.0, 1.0), "Q4_0": (2.05, 4.1), "Q4_1": (2.05, 4.1), "Q5_0": (3.0, 6.0),
    "Q5_1": (3.0, 6.0), "Q8_0": (2.05, 4.1), "Q2_K": (3.15, 6.3), "Q3_K": (3.15, 6.3), "Q4_K": (3.1, 6.2), "Q5_K": (3.35, 6.7),
    "Q6_K": (2.65, 5.3),
}


def dequantize_peak(type_id, dtype):
    """DEQUANT_PEAK of a ggml type id for a result of `dtype` (float32, or bfloat16 / float16 as computed through float32)."""
    return DEQUANT_PEAK[quant_type(type_id).name][0 if dtype == torch.float32 else 1]


def supported_type_names():
    return [t.name for t in QUANT_TYPES.values()]


def quant_type(type_id, type_name=None, tensor=None):
    """The layout of a ggml type id, or UnsupportedTypeError naming the tensor and the type."""
    entry = QUANT_TYPES.get(type_id)
    if entry is None:
        what = f"tensor {tensor} " if tensor else ""
        raise UnsupportedTypeError(
            f"{what}is {type_name or f'ggml type {type_id}'}, which the gguf trainer cannot dequantise (it reads {', '.join(supported_type_names())})"
        )
    return entry


def stored_as(type_id):
    """The torch dtype a float type's bytes are (F32, F16, BF16), None for block types."""
    return _STORED_AS.get(type_id)


def dequantize(raw, type_id, dtype=torch.float32):
    """The values of `raw` (a flat or [rows, bytes per row] uint8 tensor of whole blocks of type `type_id`),
    flat, as `dtype`, on raw's device."""
    entry = quant_type(type_id)
    flat = raw.reshape(-1)
    if stored_as(type_id) == dtype:  # bytes already in the compute dtype (F32 / F16 / BF16 weights): a view, no copy
        return flat.contiguous().view(dtype)
    if type_id in _FLOATS:
        size, convert = _FLOATS[type_id]
        values = convert(flat.reshape(-1, size)).reshape(-1)
    else:
        if flat.numel() % entry.type_size:
            raise ValueError(f"{entry.name}: {flat.numel()} bytes are not whole blocks of {entry.type_size}")
        values = entry.dequantize(flat.reshape(-1, entry.type_size)).reshape(-1)
    return values if values.dtype == dtype else values.to(dtype)
