"""The parts both SPADE trainers share: the batch file, the trained-token mask, the sampling
transform, the clipped GRPO objective with truncated importance sampling and the hyperparameters
(the round itself: spade_step.py; the worker's stdio line protocol: protocol/spade_protocol.py).

Nothing here knows about a model format. A trainer supplies a *policy* object with:

- ``architecture`` (str) and ``vocab_size`` (int)
- ``logprobs(line, grad, adapter=True, definitions=[...])``: for each log-prob definition
  (spade_logprobs: the full softmax at a temperature, or the line's sampling transform), the
  log-probs of the line's trained tokens (a 1-D tensor, one entry per mask=1 position, in order);
  with ``grad`` they carry gradients to the LoRA parameters; ``adapter=False`` gives the base
  model's. A policy may also have ``logprobs_many(lines, grad, adapter, definitions)``, with
  definitions a function of the line, for one batched forward pass.
- ``trainable_parameters()``: the LoRA tensors the optimiser updates.
- ``save(path, hyper)``: writes the adapter.

Only PyTorch and the standard library are imported here, so the unit tests run with Debian's torch.
"""
import json
import math
import sys
import time

BATCH_FORMAT = "spade-batch"
BATCH_VERSION = 1
ROLES = ("agent", "designer")

#: Defaults of the ``hyper`` object of a train command. Every key may be given; unknown keys are refused.
#: The workbench sends the same values (shared/trainingConfig.ts, defaultTrainingHyper; a test keeps them equal).
DEFAULT_HYPER = {
    # LoRA is this project's deviation (the paper's runs fine-tune every weight at 1e-6); the reference's own LoRA
    # launchers (cmd/tinker/*/train_spade_tinker.sh: LORA_RANK 32, LEARNING_RATE 1e-6) train rank 32 at 1e-6, as here.
    "learningRate": 1e-6,
    "rank": 32,
    "alpha": 32.0,
    # Passes over the round's batch (the reference: 1).
    "epochs": 1,
    # Samples per optimiser step (slime's --global-batch-size); null: the whole batch, one step per round (the reference).
    "samplesPerStep": None,
    # Tokens per optimiser step (a second bound on the steps; null: none). Set, it reproduces this trainer's former token-packed steps.
    "maxTokensPerBatch": None,
    # "sample": each sample's token mean, summed, divided by the step's sample count (slime); "token": the step's token mean.
    "lossAggregation": "sample",
    # "reference": the full-vocabulary softmax of logits / rolloutTemperature (slime); "sampling": llama.cpp's sampling transform per line.
    "logprobs": "reference",
    # slime's --rollout-temperature: the gradient's log-probs are those of logits / this (1.0 in the SPADE launchers).
    "rolloutTemperature": 1.0,
    "clipLow": 0.2,
    "clipHigh": 0.28,
    # Truncated importance sampling against the behaviour log-probs: weight min(pi_old / mu, tisCap), no lower bound.
    "tisCap": 2.0,
    # KL penalty to the base model with the low-variance (k3) estimator (slime's low_var_kl); 0 = off (the games launchers).
    "klCoef": 0.0,
    # AdamW as Megatron's Adam in the reference: betas (0.9, 0.98), eps 1e-8, decoupled weight decay 0.1.
    "adamBeta1": 0.9,
    "adamBeta2": 0.98,
    "adamEps": 1e-8,
    "weightDecay": 0.1,
    # Gradient norm clip (0 = off).
    "gradClip": 1.0,
    "seed": 0,
    # Refuse to train when the recomputed behaviour log-probs differ from the recorded ones by more than this (mean |diff|, nats).
    "mismatchTolerance": 0.5,
    # Padded tokens per forward pass: micro-batches accumulate gradients; memory, not the result, depends on it.
    "microBatchTokens": 4096,
    # Positions whose output-layer logits exist at once (forward and backward): bounds the output layer's memory.
    "outputChunkTokens": 512,
    # Recompute each block's activations in the backward pass instead of keeping them (lower peak memory).
    "checkpointing": True,
    # Projections that get a LoRA: any of attn_q, attn_k, attn_v, attn_output, ffn_gate, ffn_up, ffn_down.
    "targets": ["attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"],
}
#: What a line's recorded behaviour log-probs can be (its ``sampling.logprobs``): "sampling" llama.cpp's sampling
#: transform (the local backend), "raw" the full softmax at temperature 1 of the unprocessed logits (vLLM V1's
#: raw_logprobs), "tempered" the full softmax of logits / the sampling temperature (SGLang's sampler).
LOGPROB_DEFINITIONS = ("sampling", "raw", "tempered")
HYPER_CHOICES = {"lossAggregation": ("sample", "token"), "logprobs": ("reference", "sampling")}
TARGETS = ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down")


class BatchFormatError(ValueError):
    """A batch line that does not follow the format: the message names the file, line and key."""


class ProtocolError(ValueError):
    """A command that does not follow the line protocol: the message names the key and what was expected."""


class MismatchError(RuntimeError):
    """The recomputed behaviour log-probs are too far from the recorded ones to be the same function."""


# ---------------------------------------------------------------------------------------------
# The batch


class BatchLine:
    """One sequence of the batch (see resources/trainers/README.md for the format)."""

    __slots__ = ("role", "tokens", "mask", "behavior", "advantage", "ref", "adapter", "sampling", "where")

    def __init__(self, role, tokens, mask, behavior, advantage, ref, adapter, sampling, where):
        self.role = role
        self.tokens = tokens
        self.mask = mask
        self.behavior = behavior
        self.advantage = advantage
        self.ref = ref
        self.adapter = adapter
        self.sampling = sampling
        self.where = where

    @property
    def trained(self):
        """Indices t with mask[t] = 1: token t is predicted by the logits at position t - 1."""
        return trained_positions(self.mask)

    def trained_behavior(self):
        """Recorded behaviour log-probs at the trained positions (None where not recorded)."""
        return [self.behavior[t] for t in self.trained]


def trained_positions(mask):
    """The positions a mask trains, in order. Position 0 has no prediction and may not be trained."""
    return [t for t, m in enumerate(mask) if m == 1]


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value):
    return (isinstance(value, (int, float)) and not isinstance(value, bool)) and math.isfinite(value)


def _describe(value):
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def parse_sampling(value, where):
    """The optional per-line sampling settings: temperature, topK, topP, minP (llama.cpp's meaning), and
    ``logprobs``, the function the recorded behaviour log-probs are (LOGPROB_DEFINITIONS; absent: "sampling")."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise BatchFormatError(f"{where}: key 'sampling': expected an object or null, got {_describe(value)}")
    known = {"temperature", "topK", "topP", "minP", "logprobs"}
    for key in value:
        if key not in known:
            raise BatchFormatError(f"{where}: key 'sampling.{key}' is unknown (known: {', '.join(sorted(known))})")
    out = {"temperature": 1.0, "topK": 0, "topP": 1.0, "minP": 0.0, "logprobs": "sampling"}
    for key in known:
        if key not in value or value[key] is None:
            continue
        if key == "logprobs":
            if value[key] not in LOGPROB_DEFINITIONS:
                raise BatchFormatError(f"{where}: key 'sampling.logprobs': expected one of {', '.join(LOGPROB_DEFINITIONS)}, got {_describe(value[key])}")
            out[key] = value[key]
            continue
        v = value[key]
        if key == "topK":
            if not _is_int(v) or v < 0:
                raise BatchFormatError(f"{where}: key 'sampling.topK': expected an integer >= 0 (0 = off), got {_describe(v)}")
        elif not _is_number(v) or v < 0 or (key in ("topP", "minP") and v > 1):
            raise BatchFormatError(f"{where}: key 'sampling.{key}': expected a number {'in [0, 1]' if key != 'temperature' else '>= 0'}, got {_describe(v)}")
        out[key] = v
    return out


def parse_batch_line(obj, where):
    if not isinstance(obj, dict):
        raise BatchFormatError(f"{where}: expected a JSON object, got {_describe(obj)}")
    known = {"role", "tokens", "mask", "behaviorLogprobs", "advantage", "ref", "adapter", "sampling"}
    for key in obj:
        if key not in known:
            raise BatchFormatError(f"{where}: key '{key}' is unknown (known: {', '.join(sorted(known))})")
    for key in ("role", "tokens", "mask", "advantage"):
        if key not in obj:
            raise BatchFormatError(f"{where}: key '{key}' is missing")
    role = obj["role"]
    if role not in ROLES:
        raise BatchFormatError(f"{where}: key 'role': expected \"agent\" or \"designer\", got {_describe(role)}")
    tokens = obj["tokens"]
    if not isinstance(tokens, list) or len(tokens) < 2 or not all(_is_int(t) and t >= 0 for t in tokens):
        raise BatchFormatError(f"{where}: key 'tokens': expected a list of at least 2 token ids (integers >= 0), got {_describe(tokens)}")
    n = len(tokens)
    mask = obj["mask"]
    if not isinstance(mask, list) or len(mask) != n or not all(m in (0, 1) and not isinstance(m, bool) for m in mask):
        raise BatchFormatError(f"{where}: key 'mask': expected a list of {n} zeros and ones (one per token), got {_describe(mask)}")
    if mask[0] == 1:
        raise BatchFormatError(f"{where}: key 'mask': position 0 is marked trained, but the first token has no prediction (it must be a prompt token)")
    if 1 not in mask:
        raise BatchFormatError(f"{where}: key 'mask': no token is marked trained (1)")
    behavior = obj.get("behaviorLogprobs")
    if behavior is None:
        behavior = [None] * n
    if not isinstance(behavior, list) or len(behavior) != n:
        raise BatchFormatError(f"{where}: key 'behaviorLogprobs': expected a list of {n} numbers or nulls (one per token), got {_describe(behavior)}")
    for t, b in enumerate(behavior):
        if b is None:
            continue
        if not _is_number(b) or b > 1e-6:
            raise BatchFormatError(f"{where}: key 'behaviorLogprobs[{t}]': expected a log-probability (a finite number <= 0) or null, got {_describe(b)}")
    behavior = [min(b, 0.0) if (b is not None and mask[t] == 1) else None for t, b in enumerate(behavior)]
    advantage = obj["advantage"]
    if not _is_number(advantage):
        raise BatchFormatError(f"{where}: key 'advantage': expected a finite number, got {_describe(advantage)}")
    ref = obj.get("ref")
    if ref is not None and not isinstance(ref, dict):
        raise BatchFormatError(f"{where}: key 'ref': expected an object, got {_describe(ref)}")
    adapter = obj.get("adapter")
    if adapter is not None and not isinstance(adapter, str):
        raise BatchFormatError(f"{where}: key 'adapter': expected a string or null, got {_describe(adapter)}")
    sampling = parse_sampling(obj.get("sampling"), where)
    return BatchLine(role, tokens, mask, behavior, float(advantage), ref, adapter, sampling, where)


def read_batch(path):
    """Reads a batch JSONL file: an optional header line, then one sequence per line."""
    try:
        with open(path, encoding="utf-8") as f:
            raw = f.read().splitlines()
    except OSError as error:
        raise BatchFormatError(f"{path}: cannot read the batch file ({error.strerror})") from None
    header = None
    lines = []
    skipped = 0
    for number, text in enumerate(raw, start=1):
        if not text.strip():
            continue
        where = f"{path}:{number}"
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as error:
            raise BatchFormatError(f"{where}: not valid JSON ({error.msg} at column {error.colno})") from None
        if isinstance(obj, dict) and "format" in obj:
            if header is not None or lines:
                raise BatchFormatError(f"{where}: a header line (\"format\") may only be the first line")
            if obj.get("format") != BATCH_FORMAT or obj.get("version") != BATCH_VERSION:
                raise BatchFormatError(f"{where}: header: expected format \"{BATCH_FORMAT}\" version {BATCH_VERSION}, got {_describe(obj.get('format'))} version {_describe(obj.get('version'))}")
            header = obj
            continue
        if isinstance(obj, dict) and obj.get("tokens") is None and "missing" in obj:
            skipped += 1  # an exported row whose tokens were not recorded: nothing to train on
            continue
        lines.append(parse_batch_line(obj, where))
    if skipped:
        log(f"{path}: skipped {skipped} rows without token ids")
    return header, lines


def check_vocab(lines, vocab_size):
    for line in lines:
        top = max(line.tokens)
        if top >= vocab_size:
            raise BatchFormatError(f"{line.where}: key 'tokens': token id {top} is outside the model's vocabulary of {vocab_size}: the batch was tokenised for another model")


# ---------------------------------------------------------------------------------------------
# The sampling transform and the loss


def sampling_logprobs(logits, targets, sampling):
    """Log-probs of `targets` under llama.cpp's sampling distribution of `logits` ([T, V]).

    node-llama-cpp's chain is top-k, top-p, min-p, then temperature, then the draw; the recorded
    probability is the softmax over the candidates that remain, of the tempered logits. The
    sampled token is always kept (it was a candidate when it was drawn; float noise at a cut-off
    must not make its probability zero). Temperature <= 0 (greedy) is recorded as the plain
    softmax, so it is computed that way here too. With no sampling settings: the plain softmax.
    """
    import torch

    logits = logits.float()
    if sampling is None:
        return torch.log_softmax(logits, dim=-1).gather(1, targets.unsqueeze(1)).squeeze(1)
    temperature = sampling["temperature"]
    if temperature <= 0:
        return torch.log_softmax(logits, dim=-1).gather(1, targets.unsqueeze(1)).squeeze(1)
    top_k, top_p, min_p = sampling["topK"], sampling["topP"], sampling["minP"]
    vocab = logits.shape[-1]
    truncate = (0 < top_k < vocab) or top_p < 1 or min_p > 0
    if truncate:
        with torch.no_grad():
            keep = torch.ones_like(logits, dtype=torch.bool)
            if 0 < top_k < vocab:
                kth = torch.topk(logits, top_k, dim=-1).values[:, -1:]
                keep &= logits >= kth
            if top_p < 1:
                masked = logits.masked_fill(~keep, float("-inf"))
                probs = torch.softmax(masked, dim=-1)
                sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
                before = torch.cumsum(sorted_probs, dim=-1) - sorted_probs
                keep_sorted = before < top_p
                keep_sorted[:, 0] = True
                keep &= torch.zeros_like(keep).scatter(1, order, keep_sorted)
            if min_p > 0:
                top = logits.masked_fill(~keep, float("-inf")).max(dim=-1, keepdim=True).values
                keep &= logits >= top + math.log(min_p)
            keep.scatter_(1, targets.unsqueeze(1), True)
        logits = logits.masked_fill(~keep, float("-inf"))
    return torch.log_softmax(logits / temperature, dim=-1).gather(1, targets.unsqueeze(1)).squeeze(1)


def grpo_tis_terms(new_logp, old_logp, behavior_logp, advantage, clip_low, clip_high, tis_cap, kl_coef=0.0, ref_logp=None):
    """Per-token terms of the clipped GRPO objective with truncated importance sampling.

    - ratio r = pi_theta / pi_old (pi_old: this trainer's policy before the round's first step,
      recomputed), clipped to [1 - clip_low, 1 + clip_high] as PPO/DAPO do;
    - TIS weight w = min(pi_old / mu, tis_cap), mu the behaviour policy that sampled the token
      (llama.cpp's recorded log-prob), no gradient: it corrects for the mismatch between the
      sampler and the trainer without letting a rare token's ratio explode;
    - loss_t = -w * min(r * A, clip(r) * A) + kl_coef * k3(pi_theta || pi_ref).
    On-policy (old = new = mu) the gradient is -A * grad log pi_theta: the plain policy gradient.

    Returns a dict of 1-D tensors (one entry per token): loss (with gradients), and detached
    ratio, importance (pi_theta / mu), clipped (1.0 where the clip cut the gradient), tis_weight, kl.
    """
    import torch

    advantage = torch.as_tensor(advantage, dtype=new_logp.dtype, device=new_logp.device).expand_as(new_logp)
    old_logp = old_logp.detach()
    behavior_logp = behavior_logp.detach()
    ratio = torch.exp(new_logp - old_logp)
    clipped_ratio = torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high)
    unclipped = ratio * advantage
    clipped = clipped_ratio * advantage
    surrogate = torch.minimum(unclipped, clipped)
    tis_weight = torch.clamp(torch.exp(old_logp - behavior_logp), max=tis_cap)
    loss = -tis_weight * surrogate
    if kl_coef and ref_logp is not None:
        # slime's low_var_kl (k3): exp(ref - new) - (ref - new) - 1, clamped to [-10, 10] as slime does
        log_ref = ref_logp.detach() - new_logp
        loss = loss + kl_coef * torch.clamp(torch.exp(log_ref) - log_ref - 1.0, min=-10.0, max=10.0)
    with torch.no_grad():
        log_importance = new_logp.detach() - behavior_logp
        importance = torch.exp(log_importance)
        was_clipped = (clipped < unclipped).to(new_logp.dtype)
        # k3 estimate of KL(mu || pi_theta) on tokens drawn from mu.
        kl = importance - log_importance - 1.0
    return {"loss": loss, "ratio": ratio.detach(), "importance": importance, "clipped": was_clipped, "tis_weight": tis_weight, "kl": kl}


# ---------------------------------------------------------------------------------------------
# Hyperparameters and the round


def parse_hyper(value):
    if value is None:
        value = {}
    if not isinstance(value, dict):
        raise ProtocolError(f"train: key 'hyper': expected an object, got {_describe(value)}")
    hyper = dict(DEFAULT_HYPER)
    for key, v in value.items():
        if key not in DEFAULT_HYPER:
            raise ProtocolError(f"train: key 'hyper.{key}' is unknown (known: {', '.join(DEFAULT_HYPER)})")
        if v is None:
            continue
        if key in ("rank", "epochs", "maxTokensPerBatch", "seed", "microBatchTokens", "samplesPerStep", "outputChunkTokens"):
            ok = _is_int(v) and (v >= 0 if key == "seed" else v >= 1)
            expected = "an integer >= 0" if key == "seed" else "an integer >= 1"
        elif key == "targets":
            ok = isinstance(v, list) and len(v) > 0 and all(t in TARGETS for t in v)
            expected = f"a non-empty list of {', '.join(TARGETS)}"
        elif key in HYPER_CHOICES:
            ok = v in HYPER_CHOICES[key]
            expected = " or ".join(f'"{c}"' for c in HYPER_CHOICES[key])
        elif key == "checkpointing":
            ok = isinstance(v, bool)
            expected = "true or false"
        elif key in ("adamBeta1", "adamBeta2"):
            ok = _is_number(v) and 0 <= v < 1
            expected = "a number in [0, 1)"
        elif key in ("learningRate", "alpha", "tisCap", "mismatchTolerance", "rolloutTemperature", "adamEps"):
            ok = _is_number(v) and v > 0
            expected = "a number > 0"
        else:
            ok = _is_number(v) and v >= 0
            expected = "a number >= 0"
        if not ok:
            raise ProtocolError(f"train: key 'hyper.{key}': expected {expected}, got {_describe(v)}")
        hyper[key] = v
    return hyper


def measure_mismatch(recorded, recomputed):
    """Mean and max |recomputed - recorded| over the tokens whose behaviour log-prob was recorded."""
    diffs = [abs(a - b) for a, b in zip(recorded, recomputed) if a is not None]
    if not diffs:
        return {"meanAbsDiff": 0.0, "maxAbsDiff": 0.0, "tokens": 0}
    return {"meanAbsDiff": sum(diffs) / len(diffs), "maxAbsDiff": max(diffs), "tokens": len(diffs)}


def mismatch_hint(architecture, lines, recorded_per_line, recomputed_per_line):
    """Which architecture detail to check, from where the differences are."""
    early, late = [], []
    for line, rec, com in zip(lines, recorded_per_line, recomputed_per_line):
        for t, a, b in zip(line.trained, rec, com):
            if a is None:
                continue
            (early if t <= 2 else late).append(abs(a - b))
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0
    if early and late and mean(early) * 4 < mean(late):
        return f"the differences grow with the position: check the RoPE of '{architecture}' (normal vs neox pairing, freq_base, rope dimension count, scaling)"
    return (
        f"check, for '{architecture}': the RMS norm epsilon, the attention head counts and GQA grouping, the rope type, biases / q-k norms, "
        "tied output embeddings; and that the batch was sampled from this base model with the parent adapter, with its prompt tokens exactly as evaluated "
        "and its sampling settings per line"
    )


def micro_batches(lines, max_tokens):
    """Consecutive groups of lines whose padded size (count x longest) stays within max_tokens (a longer line goes alone)."""
    groups, current, longest = [], [], 0
    for line in lines:
        n = len(line.tokens)
        if current and max(longest, n) * (len(current) + 1) > max_tokens:
            groups.append(current)
            current, longest = [], 0
        current.append(line)
        longest = max(longest, n)
    if current:
        groups.append(current)
    return groups


def seed_everything(seed):
    import random

    import torch

    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy

        numpy.random.seed(seed % (2**32))
    except ImportError:
        pass


def log(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


class TrainerInputError(ValueError):
    """A model or adapter file the trainer cannot use: the message names the file and why."""


def write_logprobs(path, lines, values):
    """The logprobs command's output: per line, per token, null where mask = 0."""
    out = []
    for line, vals in zip(lines, values):
        row = [None] * len(line.tokens)
        for t, v in zip(line.trained, vals):
            row[t] = v
        out.append(row)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"logprobs": out}, f)
