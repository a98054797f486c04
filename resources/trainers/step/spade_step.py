"""One training round as the SPADE reference's trainer (slime) steps it.

- **Samples**: the lines of one episode (or one designer attempt) are one sample, found by the
  line's ``ref`` (role, run, environment, episode, attempt; the turn is ignored), so both one line
  per assistant turn and one line per episode work. A line without ``ref`` is a sample of its own.
- **Steps**: one optimiser step per round on the whole batch by default (slime: actor samples //
  global batch size = 1). ``samplesPerStep`` (slime's global batch size) and ``maxTokensPerBatch``
  split the batch into several steps; ``epochs`` repeats them. Micro-batches (``microBatchTokens``)
  only accumulate gradients: every token's weight in the loss is fixed by its step, not its
  micro-batch.
- **Aggregation** (``lossAggregation``): ``sample`` is slime's: each sample's token mean, summed
  over the step's samples and divided by the step's global batch size (``get_sum_of_sample_mean``,
  ``cp_utils.py``); ``token`` is the step's token mean. The reference pads a short batch with inert
  samples to the global batch size and, with KL 0, scales the real samples' rewards by
  global / real (``spade_rollout.py``): the divisor is then the real samples, the batch's
  compact-filtered samples (loss mask 0, kept as samples: the header's ``maskedSamples``) included;
  with KL > 0 it does not rescale, so the divisor is the global batch size (the header's
  ``globalBatch``) whenever the batch is shorter. See ``sample_divisor``.
- **Log-probs** (``logprobs``): ``reference`` is slime's full-vocabulary softmax of
  logits / ``rolloutTemperature``; ``sampling`` is llama.cpp's sampling transform of each line.
  The old log-probs come from the same weights just before the round's first step (with one step
  the PPO ratio is 1 and the clip never acts). The truncated importance weight compares them with
  the behaviour log-probs mu: in ``sampling`` mode under the line's sampling transform; in
  ``reference`` mode what the reference's inference server (SGLang) returns, the full-vocabulary
  softmax at the line's sampling temperature. A line records which function its values are
  (``sampling.logprobs``: llama.cpp's transform, vLLM's raw log-probs, SGLang's tempered ones);
  mu is the recorded value plus this trainer's (deterministic) difference between mu's function and
  the recorded one, so the recorded value itself where they agree. The mismatch check compares the
  recorded values with this trainer's recomputation of the recorded function.
- **Optimiser**: AdamW (betas, eps, weight decay from ``hyper``), gradient clip, and a state kept
  across rounds: written beside the adapter (``optimizer_state_path``) and read back from the
  parent adapter's.

Only PyTorch and the standard library are imported here.
"""
import math
import os
import time

from step import spade_grpo
from step import spade_logprobs

OPTIMIZER_FORMAT = "spade-optimizer"
OPTIMIZER_VERSION = 1


# ---------------------------------------------------------------------------------------------
# Samples and steps


def sample_key(line, index):
    """The sample a line belongs to: its ref without the turn (one episode or one designer attempt; a copy filling a short batch, ``copy``, is a sample of its own)."""
    ref = line.ref
    if not isinstance(ref, dict):
        return ("line", index)
    return (line.role, ref.get("runId"), ref.get("environmentId"), ref.get("episodeId"), ref.get("attempt"), ref.get("copy"))


def group_samples(lines):
    """The batch's samples in order of first appearance: a list of lists of lines."""
    samples, where = [], {}
    for index, line in enumerate(lines):
        key = sample_key(line, index)
        if key not in where:
            where[key] = len(samples)
            samples.append([])
        samples[where[key]].append(line)
    return samples


def sample_tokens(sample):
    return sum(len(line.trained) for line in sample)


def plan_steps(samples, samples_per_step=None, max_tokens=None):
    """Consecutive samples per optimiser step: at most samples_per_step samples and max_tokens tokens (None: no bound)."""
    steps, current, tokens = [], [], 0
    for sample in samples:
        n = sum(len(line.tokens) for line in sample)
        full = (samples_per_step is not None and len(current) >= samples_per_step) or (max_tokens is not None and current and tokens + n > max_tokens)
        if current and full:
            steps.append(current)
            current, tokens = [], 0
        current.append(sample)
        tokens += n
    if current:
        steps.append(current)
    return steps


def sample_divisor(samples, masked_samples=0, global_batch=None, kl_coef=0.0):
    """What a one-step round's summed sample means are divided by, as the reference's step divides.

    slime divides by the global batch size; the reference fills a short batch with inert samples
    (loss mask 0, not real) and, only when KL, entropy and advantage normalisation are off, scales
    the real samples' rewards by global / real (``spade/slime/spade_rollout.py``, ``_scale_supported``).
    Real samples are the lines' samples and the compact-filtered ones (their loss mask zeroed, still
    samples). So: KL 0, the real samples; KL > 0, the global batch size when the batch is shorter.
    """
    real = samples + masked_samples
    if kl_coef and global_batch is not None:
        return max(real, global_batch)
    return real


def token_weights(step, aggregation, divisor=None):
    """Each line's per-token weight in the step's loss (the loss is sum over tokens of weight x term); divisor: the sample mean's (default: the step's samples)."""
    weights = {}
    if aggregation == "token":
        total = sum(sample_tokens(sample) for sample in step)
        for sample in step:
            for line in sample:
                weights[id(line)] = 1.0 / total
        return weights
    for sample in step:
        per_sample = 1.0 / (sample_tokens(sample) * (divisor or len(step)))
        for line in sample:
            weights[id(line)] = per_sample
    return weights


# ---------------------------------------------------------------------------------------------
# Log-prob definitions


def line_temperature(line):
    """The temperature the line was sampled at (1 where unknown or greedy)."""
    sampling = line.sampling
    if not sampling or sampling["temperature"] <= 0:
        return 1.0
    return float(sampling["temperature"])


def train_definition(line, hyper):
    if hyper["logprobs"] == "reference":
        return spade_logprobs.full(hyper["rolloutTemperature"])
    return spade_logprobs.sampling(line.sampling)


def recorded_definition(line):
    """The function the line's recorded log-probs are (its ``sampling.logprobs``): llama.cpp's sampling transform
    (the local backend), vLLM V1's raw log-probs (the full softmax at temperature 1), or SGLang's (the full
    softmax at the sampling temperature)."""
    kind = line.sampling["logprobs"] if line.sampling else "sampling"
    if kind == "raw":
        return spade_logprobs.full(1.0)
    if kind == "tempered":
        return spade_logprobs.full(line_temperature(line))
    return spade_logprobs.sampling(line.sampling)


def server_definition(line):
    """What the reference's inference server (SGLang) returns: the full softmax at the sampling temperature."""
    return spade_logprobs.full(line_temperature(line))


def policy_logprobs(policy, lines, grad, definitions, adapter=True):
    """Per line, the log-probs of its trained tokens under each of definitions(line), from one forward pass."""
    many = getattr(policy, "logprobs_many", None)
    if many is not None:
        return many(lines, grad=grad, adapter=adapter, definitions=definitions)
    return [policy.logprobs(line, grad=grad, adapter=adapter, definitions=definitions(line)) for line in lines]


# ---------------------------------------------------------------------------------------------
# The optimiser and its state


def optimizer_state_path(adapter_path):
    """Where an adapter's optimiser state is kept: beside it, `<name>.optim.pt`."""
    path = adapter_path.rstrip("/\\")
    for suffix in (".gguf", "-peft"):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
            break
    return path + ".optim.pt"


def make_optimizer(params, hyper):
    import torch

    return torch.optim.AdamW(params, lr=hyper["learningRate"], betas=(hyper["adamBeta1"], hyper["adamBeta2"]), eps=hyper["adamEps"], weight_decay=hyper["weightDecay"])


def load_optimizer_state(optimizer, params, parent_adapter, log):
    """Continues the parent adapter's optimiser state; returns how ("continued", or why it starts fresh)."""
    import torch

    if not parent_adapter:
        return "fresh"
    path = optimizer_state_path(parent_adapter)
    if not os.path.exists(path):
        log(f"[spade] no optimiser state beside the parent adapter ({path}): the optimiser starts fresh (an adapter from outside this trainer, or one written before the state was kept)")
        return "fresh: no state beside the parent adapter"
    saved = torch.load(path, map_location="cpu")
    shapes = [list(p.shape) for p in params]
    if saved.get("format") != OPTIMIZER_FORMAT or saved.get("version") != OPTIMIZER_VERSION or saved.get("shapes") != shapes:
        log(f"[spade] {path}: the optimiser state is for other tensors (rank or targets changed): the optimiser starts fresh")
        return "fresh: the parent's state is for other tensors"
    groups = [dict(group) for group in optimizer.state_dict()["param_groups"]]
    optimizer.load_state_dict(saved["state"])
    # the state (moments, step counts) continues; the hyperparameters are this round's
    for group, wanted in zip(optimizer.param_groups, groups):
        for key in ("lr", "betas", "eps", "weight_decay"):
            group[key] = wanted[key]
    return "continued"


def save_optimizer_state(optimizer, params, adapter_path):
    import torch

    path = optimizer_state_path(adapter_path)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    partial = path + ".partial"
    torch.save({"format": OPTIMIZER_FORMAT, "version": OPTIMIZER_VERSION, "shapes": [list(p.shape) for p in params], "state": optimizer.state_dict()}, partial)
    os.replace(partial, path)
    return path


def optimizer_steps(optimizer):
    """Steps this optimiser state has taken, all rounds together."""
    for state in optimizer.state.values():
        step = state.get("step")
        if step is not None:
            return int(step)
    return 0


# ---------------------------------------------------------------------------------------------
# The round


def behaviour_definition(line, hyper):
    """The function mu is taken under: the reference's server (SGLang: the full softmax at the sampling temperature) in
    ``reference`` mode, the line's sampling transform in ``sampling`` mode."""
    return server_definition(line) if hyper["logprobs"] == "reference" else spade_logprobs.sampling(line.sampling)


def _behaviour(line, recorded, local, target):
    """The behaviour log-probs mu of a line's trained tokens: what the TIS weight compares the old policy with.

    mu under the target function = recorded + (target - recorded function), both recomputed here; where the
    recorded function is the target (llama.cpp's values in sampling mode, SGLang's in reference mode) that is the
    recorded value itself. A missing value is the recomputed target (on-policy)."""
    return [t + (r - l) if r is not None else t for r, l, t in zip(recorded, local, target)]


def _check_mismatch(policy, lines, recorded, recomputed, hyper, emit, group=None):
    """Emits the recomputed-vs-recorded agreement and refuses the round when it is too far to be the same function (over every rank's lines)."""
    mismatch = spade_grpo.measure_mismatch([x for r in recorded for x in r], [x for r in recomputed for x in r])
    if group is not None:
        total, tokens = group.sum([mismatch["meanAbsDiff"] * mismatch["tokens"], mismatch["tokens"]])
        mismatch = {"meanAbsDiff": total / tokens if tokens else 0.0, "maxAbsDiff": group.max(mismatch["maxAbsDiff"]), "tokens": int(tokens)}
    emit({"type": "mismatch", **mismatch})
    if mismatch["tokens"] and mismatch["meanAbsDiff"] > hyper["mismatchTolerance"]:
        raise spade_grpo.MismatchError(
            f"refusing to train: the recomputed behaviour log-probs differ from the recorded ones by {mismatch['meanAbsDiff']:.4g} on average "
            f"(max {mismatch['maxAbsDiff']:.4g}, {mismatch['tokens']} tokens; tolerance {hyper['mismatchTolerance']}), too much to be the same function; "
            + spade_grpo.mismatch_hint(policy.architecture, lines, recorded, recomputed)
        )
    return mismatch


def _floats(values):
    return [float(x) for x in values.detach().cpu()]


def train_round(policy, lines, hyper, emit, round_number, log=None, parent_adapter=None, output=None, reuse_step_pass=True, batch_header=None, group=None):
    """One training round: recompute and check, then the optimiser steps; the state is saved beside `output`.

    With one optimiser step (the reference's round) the old log-probs are the current policy's: the
    first forward pass of the step gives them (detached) together with the recorded-function check,
    so no separate recomputation pass runs; the check still refuses the round before any update.
    With several steps (or epochs) the old log-probs of later steps are the weights before the round,
    so a gradient-free pass computes them first. The metrics say where the time went:
    ``recomputeSeconds`` (that pass), ``forwardBackwardSeconds``, ``optimizerSeconds``.
    ``reuse_step_pass=False`` runs the separate pass for one step too (the same update, slower).
    ``batch_header``: the batch's header line (``maskedSamples``, ``globalBatch``: see
    ``sample_divisor``, applied when the round is one step; several steps divide by their samples).
    ``group`` (spade_distributed.ProcessGroup): this rank computes its share of each step's samples,
    the gradients are summed over the ranks before the clip, and the metrics over every rank: the
    same update as one process, up to float rounding. The caller gives ``output`` on rank 0 only.
    """
    import torch

    log = log or (lambda text: None)
    started = time.time()
    spade_grpo.check_vocab(lines, policy.vocab_size)
    samples = group_samples(lines)
    steps_plan = plan_steps(samples, hyper["samplesPerStep"], hyper["maxTokensPerBatch"])
    steps = hyper["epochs"] * len(steps_plan)
    header = batch_header or {}
    divisor = sample_divisor(len(samples), int(header.get("maskedSamples") or 0), header.get("globalBatch"), hyper["klCoef"]) if len(steps_plan) == 1 else None
    # one step: the step's own forward pass is the recomputation (same weights, same function)
    fused = steps == 1 and reuse_step_pass

    def owned(planned):
        return planned if group is None else group.own(planned)

    # this rank's lines (all of them in one process)
    own_ids = {id(line) for planned in steps_plan for sample in owned(planned) for line in sample}
    mine = [line for line in lines if id(line) in own_ids]
    recorded = {id(line): line.trained_behavior() for line in mine}
    old_t, behavior_t, local = {}, {}, {}

    def before(line):
        """The definitions the old policy is needed under: the recorded function, the trained one, and mu's."""
        return [recorded_definition(line), train_definition(line, hyper), behaviour_definition(line, hyper)]

    def keep_old(line, per_line):
        values = [_floats(v) for v in per_line]
        local[id(line)] = values[0]
        old_t[id(line)] = torch.tensor(values[1], dtype=torch.float32)
        behavior_t[id(line)] = torch.tensor(_behaviour(line, recorded[id(line)], values[0], values[2]), dtype=torch.float32)

    mismatch = None
    if not fused:
        with torch.no_grad():
            for batch in spade_grpo.micro_batches(mine, hyper["microBatchTokens"]):
                for line, per_line in zip(batch, policy_logprobs(policy, batch, False, before)):
                    keep_old(line, per_line)
        mismatch = _check_mismatch(policy, mine, [recorded[id(l)] for l in mine], [local[id(l)] for l in mine], hyper, emit, group)
    recompute_seconds = time.time() - started

    params = list(policy.trainable_parameters())
    optimizer = make_optimizer(params, hyper)
    optimizer_from = load_optimizer_state(optimizer, params, parent_adapter, log)
    totals = {"loss": 0.0, "ratio_sum": 0.0, "ratio_max": 0.0, "clipped": 0.0, "kl": 0.0, "tokens": 0, "grad_norm": 0.0}
    # fused: the old policy's definitions from the step's own pass, the trained one (index 1) with its gradient
    step_defs = before if fused else (lambda line: [train_definition(line, hyper)])
    trained_at = 1 if fused else 0
    timing = {"forwardBackward": 0.0, "optimizer": 0.0}
    step = 0
    for _ in range(hyper["epochs"]):
        for planned in steps_plan:
            clock = time.time()
            optimizer.zero_grad()
            weights = token_weights(planned, hyper["lossAggregation"], divisor)
            step_lines = [line for sample in owned(planned) for line in sample]
            step_loss = 0.0
            for batch in spade_grpo.micro_batches(step_lines, hyper["microBatchTokens"]):
                values = policy_logprobs(policy, batch, True, step_defs)
                news = [per_line[trained_at] for per_line in values]
                if fused:
                    for line, per_line in zip(batch, values):
                        keep_old(line, per_line)
                # the other definitions' graphs (never backwarded) go now: they would keep the output layer's weight alive through the backward pass
                del values
                refs = [None] * len(batch)
                if hyper["klCoef"]:
                    with torch.no_grad():
                        refs = [per_line[0] for per_line in policy_logprobs(policy, batch, False, lambda line: [train_definition(line, hyper)], adapter=False)]
                group_loss = 0
                for line, new, ref in zip(batch, news, refs):
                    device = new.device
                    terms = spade_grpo.grpo_tis_terms(new, old_t[id(line)].to(device), behavior_t[id(line)].to(device), line.advantage, hyper["clipLow"], hyper["clipHigh"], hyper["tisCap"], hyper["klCoef"], ref)
                    group_loss = group_loss + terms["loss"].sum() * weights[id(line)]
                    totals["ratio_sum"] += float(terms["importance"].sum())
                    totals["ratio_max"] = max(totals["ratio_max"], float(terms["importance"].max()))
                    totals["clipped"] += float(terms["clipped"].sum())
                    totals["kl"] += float(terms["kl"].sum())
                    totals["tokens"] += len(line.trained)
                group_loss.backward()
                step_loss += float(group_loss)
            if group is not None:
                # every rank's gradients summed: the gradient one process computes for the whole step
                group.sum_gradients(params)
                (step_loss,) = group.sum([step_loss])
            if fused:
                # every line's old policy is known now, and nothing has been updated yet: the check refuses here as before
                mismatch = _check_mismatch(policy, mine, [recorded[id(l)] for l in mine], [local[id(l)] for l in mine], hyper, emit, group)
            now = time.time()
            timing["forwardBackward"] += now - clock
            clock = now
            norm = torch.nn.utils.clip_grad_norm_(params, hyper["gradClip"] if hyper["gradClip"] > 0 else float("inf"))
            if not (math.isfinite(step_loss) and math.isfinite(float(norm))):
                raise FloatingPointError(f"round {round_number}, step {step + 1}: the loss or gradient is not finite (loss {step_loss}, grad norm {float(norm)}): lower hyper.learningRate, or check the batch's advantages and log-probs")
            optimizer.step()
            step += 1
            totals["loss"] += step_loss
            totals["grad_norm"] += float(norm)
            timing["optimizer"] += time.time() - clock
            emit({"type": "progress", "round": round_number, "step": step, "steps": steps, "loss": step_loss})
    clock = time.time()
    if output:
        save_optimizer_state(optimizer, params, output)
    timing["optimizer"] += time.time() - clock
    seconds = time.time() - started
    if group is not None:
        totals["ratio_sum"], totals["clipped"], totals["kl"], totals["tokens"] = group.sum([totals["ratio_sum"], totals["clipped"], totals["kl"], totals["tokens"]])
        totals["ratio_max"] = group.max(totals["ratio_max"])
    tokens = totals["tokens"]
    return {
        "loss": totals["loss"] / max(steps, 1),
        "meanRatio": totals["ratio_sum"] / max(tokens, 1),
        "maxRatio": totals["ratio_max"],
        "clippedFraction": totals["clipped"] / max(tokens, 1),
        "kl": totals["kl"] / max(tokens, 1),
        "gradNorm": totals["grad_norm"] / max(steps, 1),
        "tokens": sum(len(line.trained) for line in lines),
        "seconds": seconds,
        "recomputeSeconds": recompute_seconds,
        "forwardBackwardSeconds": timing["forwardBackward"],
        "optimizerSeconds": timing["optimizer"],
        "steps": steps,
        "samples": len(samples),
        "sequences": len(lines),
        "lossAggregation": hyper["lossAggregation"],
        "logprobs": hyper["logprobs"],
        "optimizerState": optimizer_from,
        "optimizerSteps": optimizer_steps(optimizer),
        "mismatchMeanAbsDiff": mismatch["meanAbsDiff"],
        "mismatchMaxAbsDiff": mismatch["maxAbsDiff"],
        "tokensPerSec": tokens / seconds if seconds > 0 else 0.0,
    }


def recompute(policy, lines, definition_of, micro_batch_tokens):
    """This trainer's log-probs of every line's trained tokens under definition_of(line) (no gradients), as Python floats."""
    import torch

    out = []
    with torch.no_grad():
        for group in spade_grpo.micro_batches(lines, micro_batch_tokens):
            out.extend([float(x) for x in values[0].cpu()] for values in policy_logprobs(policy, group, False, lambda line: [definition_of(line)]))
    return out
