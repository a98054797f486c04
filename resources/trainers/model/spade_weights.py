"""The frozen base weights of the gguf trainer, held two ways behind one small interface.

- `QuantizedWeight` (the default, the QLoRA way): the tensor's GGUF bytes stay on the device as a
  uint8 tensor and are dequantised each time the layer runs, in the forward pass and again in the
  backward pass, so only one layer's full-precision copy is alive at a time. A 4.7 GB Q4_K_M 7B
  needs about 4.7 GB on the device instead of ~15 GB of bf16.
- `DenseWeight` (`--weights full`): the dequantised copy, made once; faster where it fits.

Both compute the same function: `matmul(x)` is x @ W.T and `rows(index)` is W[index] (embedding
lookup), in the compute dtype. LoRA is applied on top by the caller.
"""
import torch

from model import spade_quants


class DenseWeight:
    """A full-precision copy of a base weight."""

    def __init__(self, tensor, type_id=0):
        self.tensor = tensor
        self.shape = tuple(tensor.shape)
        self.type_id = type_id  # the ggml type it was read from

    def matmul(self, x):
        return x @ self.tensor.t()

    def rows(self, index):
        return self.tensor[index]

    def dense(self):
        return self.tensor

    def numel(self):
        return self.tensor.numel()


#: Values dequantised at once (whole rows): a larger weight is dequantised block by block into its result.
DEQUANT_CHUNK = 1 << 24


def dequantize_peak_bytes(working_bytes, values, peak):
    """The resident peak of `QuantizedWeight.dense()` for a result of `working_bytes` holding `values` values, `peak` being
    the type's DEQUANT_PEAK: the whole dequantisation's, or the result beside one block's (at most DEQUANT_CHUNK values)."""
    if values <= DEQUANT_CHUNK:
        return working_bytes * peak
    return working_bytes + working_bytes / values * DEQUANT_CHUNK * peak


class QuantizedWeight:
    """A base weight kept as its GGUF bytes ([rows, bytes per row] uint8 on the device), dequantised when used."""

    def __init__(self, raw, type_id, shape, dtype):
        self.raw = raw.reshape(shape[0], -1)
        self.type_id = type_id
        self.shape = tuple(shape)
        self.dtype = dtype

    def dense(self):
        """The weight as `dtype`; a weight of more than DEQUANT_CHUNK values is dequantised a block of whole rows at a time into
        its result, so the dequantiser's intermediate arrays never outgrow one block (the same values: a row's blocks are its own)."""
        step = max(1, DEQUANT_CHUNK // self.shape[1])
        if self.shape[0] <= step or self.working_bytes() == 0:  # small, or the bytes themselves (a view)
            return spade_quants.dequantize(self.raw, self.type_id, self.dtype).view(self.shape)
        out = torch.empty(self.shape, dtype=self.dtype, device=self.raw.device)
        for start in range(0, self.shape[0], step):
            rows = self.raw[start:start + step]
            out[start:start + rows.shape[0]] = spade_quants.dequantize(rows, self.type_id, self.dtype).view(rows.shape[0], self.shape[1])
        return out

    def numel(self):
        """Elements of the weight (not of its bytes), as a tensor's numel()."""
        return self.shape[0] * self.shape[1]

    def working_bytes(self):
        """Bytes `dense()` allocates: none where the bytes already are the compute dtype (F32 / F16 / BF16: a view)."""
        if spade_quants.stored_as(self.type_id) == self.dtype:
            return 0
        return self.numel() * torch.empty((), dtype=self.dtype).element_size()

    def peak_bytes(self):
        """The resident peak while `dense()` runs: its result and the dequantiser's intermediate arrays (spade_quants.DEQUANT_PEAK),
        of the whole weight, or beside the result of one block of DEQUANT_CHUNK values."""
        return dequantize_peak_bytes(self.working_bytes(), self.numel(), spade_quants.dequantize_peak(self.type_id, self.dtype))

    def matmul(self, x):
        return _DequantizedMatmul.apply(x, self)

    def rows(self, index):
        """Only the rows asked for are dequantised (the embedding of a 150k vocabulary stays quantised)."""
        flat = index.reshape(-1)
        values = spade_quants.dequantize(self.raw[flat], self.type_id, self.dtype)
        return values.view(*index.shape, self.shape[1])


class _DequantizedMatmul(torch.autograd.Function):
    """x @ W.T with W dequantised from its bytes in the forward pass and again in the backward pass
    (W is frozen: only x gets a gradient, and nothing of W is saved between the two)."""

    @staticmethod
    def forward(ctx, x, weight):
        ctx.weight = weight
        return x @ weight.dense().t()

    @staticmethod
    def backward(ctx, grad):
        return grad @ ctx.weight.dense(), None


#: How `load_weight` holds a tensor: "quantized" (bytes on the device) or "full" (a dequantised copy).
HOLDINGS = ("quantized", "full")


def load_weight(f, info, device, dtype, holding="quantized"):
    """The tensor `info` of GgufFile `f` held as `holding` on `device`, computing in `dtype`."""
    if holding not in HOLDINGS:
        raise ValueError(f"weights: {holding!r} is not one of {', '.join(HOLDINGS)}")
    raw = torch.from_numpy(f.tensor_bytes(info).copy()).to(device)
    if holding == "full":
        return DenseWeight(spade_quants.dequantize(raw, info.type, dtype).view(info.shape), info.type)
    return QuantizedWeight(raw, info.type, info.shape, dtype)
