"""Giving the GPU back between rounds: the trainer's tensors go to host memory and come back.

llama.cpp loads the inference model again after each round; on one GPU it must not compete with
weights the idle trainer still holds. `move_tensors` walks a model object (attributes, lists,
tuples, dicts, nested plain objects) and replaces every tensor by `to(tensor)`, a tensor shared
by two attributes (tied embeddings) staying shared; `offload` and `restore` use it with the host
and the device, and `offload` empties the caching allocator.
"""
import types

MAX_DEPTH = 8


def move_tensors(obj, to):
    """Replaces, in place, every tensor reachable from `obj` by `to(tensor)`; returns how many distinct tensors moved."""
    import torch

    done = {}

    def mapped(value, depth):
        if isinstance(value, torch.Tensor):
            key = id(value)
            if key not in done:
                done[key] = to(value)
            return done[key]
        if depth > MAX_DEPTH or isinstance(value, (type, types.ModuleType, types.FunctionType, types.MethodType, torch.nn.Module)):
            return value
        if isinstance(value, tuple):
            return tuple(mapped(v, depth + 1) for v in value)
        if isinstance(value, list):
            value[:] = [mapped(v, depth + 1) for v in value]
        elif isinstance(value, dict):
            for k in list(value):
                value[k] = mapped(value[k], depth + 1)
        elif hasattr(value, "__dict__"):
            for k, v in list(vars(value).items()):
                setattr(value, k, mapped(v, depth + 1))
        return value

    mapped(obj, 0)
    return len(done)


def offload(model, device):
    """On a CUDA device: the model's tensors to host memory, the allocator's cached blocks freed. Returns the bytes CUDA still reserves (None on other devices)."""
    import torch

    if torch.device(device).type != "cuda":
        return None
    if isinstance(model, torch.nn.Module):
        model.to("cpu")
    else:
        move_tensors(model, lambda t: t.to("cpu"))
    torch.cuda.synchronize(device)
    torch.cuda.empty_cache()
    return int(torch.cuda.memory_reserved(device))


def restore(model, device):
    """The model's tensors back on `device` (after `offload`)."""
    import torch

    if torch.device(device).type != "cuda":
        return
    if isinstance(model, torch.nn.Module):
        model.to(device)
    else:
        move_tensors(model, lambda t: t.to(device))
