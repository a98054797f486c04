"""Log-probabilities of trained tokens from the output layer, in chunks of positions.

The output layer is the largest single activation of a training step: positions x vocabulary
logits (4 bytes each in float32; ~152k entries per position for Qwen). Here the logits of at most
``chunk`` positions exist at a time, in the forward and in the backward pass, so the output
layer's memory is bounded by the chunk, not by the sequence length:

- ``full`` (the reference's definition: slime's full-vocabulary softmax of logits / temperature)
  runs through a custom autograd function that keeps only the hidden states and one log-sum-exp
  per position, and recomputes each chunk's logits in the backward pass. No sort.
- ``sampling`` (llama.cpp's sampling transform: top-k / top-p / min-p, then temperature) runs
  through a custom autograd function too: the forward pass computes each chunk without a graph
  and the backward pass recomputes it with one, so the sort it needs exists for one chunk at a
  time. (``torch.utils.checkpoint`` per chunk did the same arithmetic, but torch 1.13's
  non-reentrant form kept about 130 MB per chunk of 512 positions x 16k entries until the
  backward pass: the output layer's memory grew with the sequence length.)

A definition is ``("full", temperature)`` or ``("sampling", settings)`` with settings as a batch
line's ``sampling`` object (None: the plain softmax).

Only PyTorch and the standard library are imported here.
"""
import math

#: Positions whose logits exist at once when the caller gives no chunk size.
DEFAULT_CHUNK = 512


def _torch():
    import torch

    return torch


def full(temperature):
    """The reference's definition: the softmax of logits / temperature over the whole vocabulary."""
    return ("full", float(temperature))


def sampling(settings):
    """llama.cpp's sampling transform of a batch line (None: the plain softmax)."""
    return ("sampling", settings)


def _full_logprob_function():
    torch = _torch()

    class FullSoftmaxLogprob(torch.autograd.Function):
        """log softmax(hidden @ weight.T / temperature)[target], chunk by chunk; the weight is frozen."""

        @staticmethod
        def forward(ctx, hidden, weight, targets, temperature, chunk):
            out = torch.empty(hidden.shape[0], dtype=torch.float32, device=hidden.device)
            lse = torch.empty_like(out)
            for start in range(0, hidden.shape[0], chunk):
                end = start + chunk
                logits = (hidden[start:end] @ weight.t()).float() / temperature
                lse[start:end] = torch.logsumexp(logits, dim=-1)
                out[start:end] = logits.gather(1, targets[start:end].unsqueeze(1)).squeeze(1) - lse[start:end]
                del logits
            ctx.save_for_backward(hidden, weight, targets, lse)
            ctx.temperature = temperature
            ctx.chunk = chunk
            return out

        @staticmethod
        def backward(ctx, grad_out):
            hidden, weight, targets, lse = ctx.saved_tensors
            temperature, chunk = ctx.temperature, ctx.chunk
            grad_hidden = torch.empty_like(hidden)
            for start in range(0, hidden.shape[0], chunk):
                end = start + chunk
                g = grad_out[start:end].float()
                logits = (hidden[start:end] @ weight.t()).float() / temperature
                # d logp / d logits = onehot(target) - softmax; the 1/temperature of the scaling follows.
                grad_logits = torch.exp(logits - lse[start:end].unsqueeze(1)).mul_(-g.unsqueeze(1))
                del logits
                rows = torch.arange(g.shape[0], device=hidden.device)
                grad_logits[rows, targets[start:end]] += g
                grad_logits /= temperature
                grad_hidden[start:end] = (grad_logits.to(weight.dtype) @ weight).to(hidden.dtype)
                del grad_logits
            return grad_hidden, None, None, None, None

    return FullSoftmaxLogprob


_FUNCTION = None


def full_logprobs(hidden, weight, targets, temperature=1.0, chunk=DEFAULT_CHUNK):
    """log softmax(hidden @ weight.T / temperature) at `targets`, [N]: chunked, gradients to `hidden` only."""
    global _FUNCTION
    if temperature <= 0 or not math.isfinite(temperature):
        raise ValueError(f"the log-prob temperature must be a finite number > 0, got {temperature}")
    if weight.requires_grad:
        raise ValueError("full_logprobs: the output weight is frozen here (LoRA does not adapt it); it may not require gradients")
    if _FUNCTION is None:
        _FUNCTION = _full_logprob_function()
    return _FUNCTION.apply(hidden, weight, targets, float(temperature), max(1, int(chunk)))


def _sampling_logprob_function():
    torch = _torch()
    from step.spade_grpo import sampling_logprobs

    class SamplingTransformLogprob(torch.autograd.Function):
        """llama.cpp's sampling-transform log-probs of hidden @ weight.T at targets, chunk by chunk; the weight is frozen."""

        @staticmethod
        def forward(ctx, hidden, weight, targets, settings, chunk):
            out = torch.empty(hidden.shape[0], dtype=torch.float32, device=hidden.device)
            for start in range(0, hidden.shape[0], chunk):
                end = start + chunk
                out[start:end] = sampling_logprobs(hidden[start:end] @ weight.t(), targets[start:end], settings)
            ctx.save_for_backward(hidden, weight, targets)
            ctx.settings = settings
            ctx.chunk = chunk
            return out

        @staticmethod
        def backward(ctx, grad_out):
            hidden, weight, targets = ctx.saved_tensors
            grad_hidden = torch.empty_like(hidden)
            for start in range(0, hidden.shape[0], ctx.chunk):
                end = start + ctx.chunk
                with torch.enable_grad():
                    h = hidden[start:end].detach().requires_grad_()
                    values = sampling_logprobs(h @ weight.t(), targets[start:end], ctx.settings)
                    (grad_hidden[start:end],) = torch.autograd.grad(values, h, grad_out[start:end].to(values.dtype))
            return grad_hidden, None, None, None, None

    return SamplingTransformLogprob


_SAMPLING_FUNCTION = None


def sampling_transform_logprobs(hidden, weight, targets, settings, chunk=DEFAULT_CHUNK):
    """llama.cpp's sampling-transform log-probs at `targets`, chunked; each chunk recomputed in the backward pass."""
    global _SAMPLING_FUNCTION
    if weight.requires_grad:
        raise ValueError("sampling_transform_logprobs: the output weight is frozen here (LoRA does not adapt it); it may not require gradients")
    if _SAMPLING_FUNCTION is None:
        _SAMPLING_FUNCTION = _sampling_logprob_function()
    return _SAMPLING_FUNCTION.apply(hidden, weight, targets, settings, max(1, int(chunk)))


def logprobs(hidden, weight, targets, definition, chunk=DEFAULT_CHUNK):
    """Log-probs of `targets` ([N]) given the final hidden states ([N, d]) and the output weight ([V, d])."""
    kind, value = definition
    if kind == "full":
        return full_logprobs(hidden, weight, targets, value, chunk)
    if kind == "sampling":
        return sampling_transform_logprobs(hidden, weight, targets, value, chunk)
    raise ValueError(f"unknown log-prob definition {kind!r} (expected 'full' or 'sampling')")


def logprobs_from_logits(logits, targets, definition):
    """The same definitions from logits already computed ([N, V]; the hf trainer's path)."""
    torch = _torch()
    from step.spade_grpo import sampling_logprobs

    kind, value = definition
    if kind == "full":
        return torch.log_softmax(logits.float() / value, dim=-1).gather(1, targets.unsqueeze(1)).squeeze(1)
    if kind == "sampling":
        return sampling_logprobs(logits, targets, value)
    raise ValueError(f"unknown log-prob definition {kind!r} (expected 'full' or 'sampling')")
