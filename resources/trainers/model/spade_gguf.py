"""A small GGUF reader and writer (NumPy only).

Reads metadata and tensors of a GGUF file (v2 and v3); tensor data comes back as its raw bytes
or dequantised by spade_quants (every type the trainer supports, with PyTorch; an unsupported type
is refused naming the tensor and the type). Writes GGUF files (the LoRA adapters, test models).
"""
import struct

import numpy as np

GGUF_MAGIC = b"GGUF"

# GGUF metadata value types
_U8, _I8, _U16, _I16, _U32, _I32, _F32, _BOOL, _STR, _ARR, _U64, _I64, _F64 = range(13)
_SCALARS = {_U8: "<B", _I8: "<b", _U16: "<H", _I16: "<h", _U32: "<I", _I32: "<i", _F32: "<f", _BOOL: "<?", _U64: "<Q", _I64: "<q", _F64: "<d"}

#: ggml tensor type ids and names (ggml.h).
GGML_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 6: "Q5_0", 7: "Q5_1", 8: "Q8_0", 9: "Q8_1", 10: "Q2_K", 11: "Q3_K",
    12: "Q4_K", 13: "Q5_K", 14: "Q6_K", 15: "Q8_K", 16: "IQ2_XXS", 17: "IQ2_XS", 18: "IQ3_XXS", 19: "IQ1_S",
    20: "IQ4_NL", 21: "IQ3_S", 22: "IQ2_S", 23: "IQ4_XS", 24: "I8", 25: "I16", 26: "I32", 27: "I64", 28: "F64",
    29: "IQ1_M", 30: "BF16", 34: "TQ1_0", 35: "TQ2_0", 39: "MXFP4",
}


class GgufError(ValueError):
    """A file that is not a GGUF this reader can use: the message names the file and what is wrong."""


class GgufTensorInfo:
    __slots__ = ("name", "dims", "type", "offset")

    def __init__(self, name, dims, type_id, offset):
        self.name = name
        self.dims = dims  # ggml order: dims[0] is the row length
        self.type = type_id
        self.offset = offset

    @property
    def type_name(self):
        return GGML_TYPES.get(self.type, f"type {self.type}")

    @property
    def shape(self):
        """NumPy/PyTorch order (reversed ggml dims): a [in, out] ggml matrix is a (out, in) array."""
        return tuple(reversed(self.dims))

    @property
    def elements(self):
        n = 1
        for d in self.dims:
            n *= d
        return n


class GgufFile:
    """Metadata (`metadata`, a dict) and tensor infos (`tensors`, by name) of a GGUF file; tensor data on demand."""

    def __init__(self, path):
        self.path = path
        self.metadata = {}
        self.types = {}  # key -> value type id, or (ARRAY, item type id)
        self.tensors = {}
        try:
            self._data = np.memmap(path, dtype=np.uint8, mode="r")
        except (OSError, ValueError) as error:
            raise GgufError(f"{path}: cannot read the file ({error})") from None
        self._pos = 0
        try:
            self._parse()
        except (struct.error, IndexError, UnicodeDecodeError):
            raise GgufError(f"{path}: truncated or malformed GGUF header") from None

    def _take(self, n):
        if self._pos + n > len(self._data):
            raise struct.error("past the end")
        b = self._data[self._pos : self._pos + n].tobytes()
        self._pos += n
        return b

    def _scalar(self, kind):
        fmt = _SCALARS[kind]
        return struct.unpack(fmt, self._take(struct.calcsize(fmt)))[0]

    def _string(self):
        n = self._scalar(_U64)
        return self._take(n).decode("utf-8")

    def _value(self, kind):
        if kind == _STR:
            return self._string()
        if kind == _ARR:
            item = self._scalar(_U32)
            n = self._scalar(_U64)
            if item in _SCALARS and item != _BOOL:
                fmt = _SCALARS[item]
                size = struct.calcsize(fmt)
                raw = self._take(size * n)
                return np.frombuffer(raw, dtype=np.dtype(fmt)).tolist()
            return [self._value(item) for _ in range(n)]
        if kind not in _SCALARS:
            raise GgufError(f"{self.path}: unknown metadata value type {kind}")
        return self._scalar(kind)

    def _parse(self):
        if self._take(4) != GGUF_MAGIC:
            raise GgufError(f"{self.path}: not a GGUF file (no GGUF magic)")
        version = self._scalar(_U32)
        if version not in (2, 3):
            raise GgufError(f"{self.path}: GGUF version {version} is not supported (2 or 3)")
        n_tensors = self._scalar(_U64)
        n_kv = self._scalar(_U64)
        for _ in range(n_kv):
            key = self._string()
            kind = self._scalar(_U32)
            if kind == _ARR:
                start = self._pos
                item = self._scalar(_U32)
                self._pos = start
                self.types[key] = (_ARR, item)
            else:
                self.types[key] = kind
            self.metadata[key] = self._value(kind)
        infos = []
        for _ in range(n_tensors):
            name = self._string()
            n_dims = self._scalar(_U32)
            dims = [self._scalar(_U64) for _ in range(n_dims)]
            infos.append(GgufTensorInfo(name, dims, self._scalar(_U32), self._scalar(_U64)))
        alignment = int(self.metadata.get("general.alignment", 32))
        self.data_offset = (self._pos + alignment - 1) // alignment * alignment
        for info in infos:
            self.tensors[info.name] = info

    def get(self, key, default=None):
        return self.metadata.get(key, default)

    def raw(self, info, nbytes):
        start = self.data_offset + info.offset
        if start + nbytes > len(self._data):
            raise GgufError(f"{self.path}: tensor {info.name} runs past the end of the file")
        return self._data[start : start + nbytes]

    def tensor_bytes(self, info):
        """The tensor's stored bytes (a read-only uint8 NumPy view of the file), checked to be whole blocks of a supported type."""
        from model import spade_quants

        try:
            entry = spade_quants.quant_type(info.type, info.type_name, info.name)
        except spade_quants.UnsupportedTypeError as error:
            raise GgufError(f"{self.path}: {error}") from None
        if info.dims[0] % entry.block_size:
            raise GgufError(f"{self.path}: tensor {info.name} ({entry.name}) has rows of {info.dims[0]} values, not a multiple of its block size {entry.block_size}")
        return self.raw(info, info.elements // entry.block_size * entry.type_size)

    def check_types(self, names=None):
        """Raises GgufError naming the first tensor (of `names`, default all) whose type cannot be dequantised."""
        for name in names if names is not None else self.tensors:
            self.tensor_bytes(self.tensors[name])

    def tensor(self, name):
        """The tensor as a float32 NumPy array in PyTorch order (see GgufTensorInfo.shape)."""
        info = self.tensors.get(name)
        if info is None:
            raise GgufError(f"{self.path}: no tensor named {name}")
        return dequantize(self, info).reshape(info.shape)


def dequantize(f, info):
    """The tensor's values, flat, as float32 NumPy (dequantised with PyTorch on the CPU)."""
    import torch

    from model import spade_quants

    raw = torch.from_numpy(np.array(f.tensor_bytes(info)))
    return spade_quants.dequantize(raw, info.type).numpy()


# ---------------------------------------------------------------------------------------------
# Writing


def _pack_string(text):
    b = text.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def _pack_typed(kind, value):
    if kind == _STR:
        return _pack_string(value)
    if kind == _ARR:
        item_kind, items = value
        body = struct.pack("<IQ", item_kind, len(items))
        return body + b"".join(_pack_typed(item_kind, item) for item in items)
    return struct.pack(_SCALARS[kind], value)


def _pack_value(value):
    if isinstance(value, _RawValue):
        kind = value.kind
        payload = (kind[1], value.value) if isinstance(kind, tuple) else value.value
        return struct.pack("<I", kind[0] if isinstance(kind, tuple) else kind) + _pack_typed(_ARR if isinstance(kind, tuple) else kind, payload)
    if isinstance(value, bool):
        return struct.pack("<I", _BOOL) + struct.pack("<?", value)
    if isinstance(value, str):
        return struct.pack("<I", _STR) + _pack_string(value)
    if isinstance(value, float):
        return struct.pack("<I", _F32) + struct.pack("<f", value)
    if isinstance(value, int):
        return struct.pack("<I", _U32) + struct.pack("<I", value)
    raise TypeError(f"cannot write a GGUF metadata value of type {type(value).__name__}")


def encode_tensor(array, type_name):
    """The bytes of a float array stored as F32, F16, BF16 or Q8_0 (ggml's reference quantisation)."""
    array = np.ascontiguousarray(array, dtype=np.float32)
    if type_name == "F32":
        return array.tobytes()
    if type_name == "F16":
        return array.astype(np.float16).tobytes()
    if type_name == "BF16":
        bits = array.view(np.uint32)
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16  # round to nearest even
        return rounded.astype(np.uint16).tobytes()
    if type_name == "Q8_0":
        if array.shape[-1] % 32:
            raise GgufError(f"Q8_0 needs rows that are a multiple of 32 values, got {array.shape[-1]}")
        blocks = array.reshape(-1, 32)
        d = np.abs(blocks).max(axis=1) / 127.0
        inv = np.where(d > 0, 1.0 / np.where(d > 0, d, 1.0), 0.0)
        q = np.round(blocks * inv[:, None]).astype(np.int8)
        out = np.zeros((blocks.shape[0], 34), dtype=np.uint8)
        out[:, :2] = d.astype(np.float16).view(np.uint8).reshape(-1, 2)
        out[:, 2:] = q.view(np.uint8)
        return out.tobytes()
    raise GgufError(f"cannot write tensors of type {type_name} (F32, F16, BF16 and Q8_0 can be written)")


_TYPE_IDS = {name: tid for tid, name in GGML_TYPES.items()}


class EncodedTensor:
    """A tensor's bytes already in its ggml type (test models: random blocks of a quantised type); shape in PyTorch order."""

    def __init__(self, data, shape, type_name):
        self.data, self.shape, self.type_name = bytes(data), tuple(shape), type_name


def write_gguf(path, metadata, tensors, alignment=32):
    """Writes a GGUF v3 file. `metadata`: str/int (u32)/float (f32)/bool values, or a (type, value) pair
    with a GGUF value-type id; `tensors`: (name, float array in PyTorch order[, ggml type name, default F32])
    or (name, EncodedTensor)."""
    header = bytearray()
    header += GGUF_MAGIC + struct.pack("<IQQ", 3, len(tensors), len(metadata))
    for key, value in metadata.items():
        header += _pack_string(key) + _pack_value(value)
    offset = 0
    blobs = []
    for item in tensors:
        name = item[0]
        if isinstance(item[1], EncodedTensor):
            blob, type_name, dims = item[1].data, item[1].type_name, list(reversed(item[1].shape))
        else:
            array = np.asarray(item[1])
            type_name = item[2] if len(item) > 2 else "F32"
            blob, dims = encode_tensor(array, type_name), list(reversed(array.shape))
        header += _pack_string(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        header += struct.pack("<IQ", _TYPE_IDS[type_name], offset)
        blobs.append(blob)
        offset += (len(blob) + alignment - 1) // alignment * alignment
    header += b"\0" * ((alignment - len(header) % alignment) % alignment)
    with open(path, "wb") as out:
        out.write(header)
        for blob in blobs:
            out.write(blob)
            out.write(b"\0" * ((alignment - len(blob) % alignment) % alignment))


def copy_gguf(source, path, tensor_type=lambda name, info: "F32"):
    """Rewrites a GGUF with its metadata kept and each tensor stored as tensor_type(name, info) (tests: F16 / Q8_0 copies of a model)."""
    f = GgufFile(source)
    metadata = {key: _RawValue(f, key) for key in f.metadata}
    tensors = [(name, f.tensor(name), tensor_type(name, info)) for name, info in f.tensors.items()]
    write_gguf(path, metadata, tensors, int(f.get("general.alignment", 32)))


class _RawValue:
    """A metadata value copied with its original GGUF type."""

    def __init__(self, f, key):
        self.kind, self.value = f.types[key], f.metadata[key]
