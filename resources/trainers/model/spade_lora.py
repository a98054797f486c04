"""The LoRA adapter the gguf trainer trains: A and B per adapted projection, read from and written as a GGUF LoRA llama.cpp loads."""
import math
import os

import torch

from step import spade_grpo
from model.spade_gguf import GgufError, GgufFile, write_gguf
from step.spade_grpo import TrainerInputError


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
