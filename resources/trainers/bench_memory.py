#!/usr/bin/env python3
"""Measures a training round's real peak memory and speed against spade_memory's prediction (CPU).

    bench_memory.py --model M.gguf [--lines 4 --length 512 --trained 256] [--hyper '{...}'] [--threads N]

runs one round of the gguf trainer on a random batch in this process and prints one JSON object:
the measured peak, the prediction and its parts, trained tokens/s, the round's seconds, its CPU seconds and
minor page faults (both robust to other processes' load), and glibc's mmap threshold as set in the environment
(``MALLOC_MMAP_THRESHOLD_``: the trainer worker's is fixed by the engine, main/training/trainerAllocatorEnv.ts; give the
same here to measure what a run does, as the bench does). The
process first does what a persistent worker has done before a round: the model is loaded and a
small round has run (PyTorch's kernels, thread pool and code pages in place); glibc's heap is then
trimmed (``malloc_trim``) so the round starts from the memory it holds, not from blocks freed while
loading. The peak is the kernel's exact high-water mark of the process's resident memory (VmHWM,
reset through /proc/self/clear_refs just before the round) above the level at its start, plus the
held weights: no sampling interval can miss a short-lived tensor. Where that reset is not possible
a thread samples the anonymous resident memory every 2 ms instead.

    bench_memory.py --suite DIR [--types F16,Q8_0,Q4_K] [--sizes 10M,50M,200M] [--threads N]

writes random-weight models of about 10M, 50M and 200M parameters (spade_random_model) in each
tensor type into DIR and measures each in its own process, which inherits this one's environment (one JSON object:
{"models": [...]}). A
K-quant model's matrices whose rows are not whole 256-value blocks get llama.cpp's fallback type.
"""
import argparse
import json
import os
import random
import resource
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from runtime import spade_blas  # noqa: E402

if __name__ == "__main__":
    spade_blas.prepare()  # OpenBLAS's kernels are chosen as torch loads it: before any module below imports torch

from runtime import spade_memory  # noqa: E402
from model import spade_random_model  # noqa: E402

#: The sampling settings of the bench's lines: the agent's defaults (shared/runConfig.ts), top-k and top-p as a run samples.
AGENT_SAMPLING = {"temperature": 0.6, "topK": 20, "topP": 0.95}

#: The suite's models: (label, shape, layers, vocab), about 10M, 50M and 200M parameters.
SUITE = [
    ("10M", dict(spade_random_model.SHAPES["tiny"], embd=384, ffn=1024, heads=6, kv_heads=2, head_dim=64, vocab=8192), 4, None),
    ("50M", spade_random_model.SHAPES["qwen2.5-0.5b"], 2, 32000),
    ("200M", spade_random_model.SHAPES["qwen2.5-1.5b"], 3, 16000),
]


def status_bytes(field):
    """A memory field of /proc/self/status (VmRSS, VmHWM, RssAnon) in bytes; 0 where there is none."""
    with open("/proc/self/status", encoding="ascii") as f:
        for row in f:
            if row.startswith(field + ":"):
                return int(row.split()[1]) * 1024
    return 0


def anon_rss():
    """This process's anonymous resident memory in bytes (RssAnon)."""
    return status_bytes("RssAnon")


def reset_high_water():
    """Resets the kernel's resident high-water mark (VmHWM) to the current size; False where it cannot (not Linux)."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
        return True
    except OSError:
        return False


def trim_heap():
    """Gives glibc's free heap blocks back to the system (malloc_trim), where the C library has it."""
    import ctypes

    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


class HighWater:
    """The peak resident memory of a block above its start: the kernel's VmHWM, or a PeakSampler where VmHWM cannot be reset."""

    def __enter__(self):
        self._exact = reset_high_water()
        if self._exact:
            self._base = status_bytes("VmRSS")
        else:
            self._sampler = PeakSampler().__enter__()
            self._base = anon_rss()
        return self

    def __exit__(self, *exc):
        if self._exact:
            self.peak = status_bytes("VmHWM") - self._base
        else:
            self._sampler.__exit__(*exc)
            self.peak = self._sampler.peak - self._base


class PeakSampler:
    """Samples RssAnon every few milliseconds on a thread (torch releases the GIL in its kernels)."""

    def __init__(self, interval=0.002):
        self.interval = interval
        self.peak = anon_rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, anon_rss())
            time.sleep(self.interval)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, anon_rss())


def measure_output_layer(args):
    """The output layer alone, as a round's step runs it: the recorded function (the sampling transform), the trained and the
    server's full softmax in the forward pass, then the trained one's backward, over --positions hidden states of --dim values
    and a --vocab-entry output matrix, in chunks of outputChunkTokens rows. The peak above the inputs, and the prediction."""
    import torch

    from step import spade_grpo
    from step import spade_logprobs

    spade_blas.use_threads(torch, args.threads)
    hyper = spade_grpo.parse_hyper(json.loads(args.hyper))
    chunk = hyper["outputChunkTokens"]
    generator = torch.Generator().manual_seed(args.seed)
    weight = torch.randn(args.vocab, args.dim, generator=generator) * 0.5
    settings = spade_grpo.parse_sampling(AGENT_SAMPLING, "bench")

    def step(positions):
        hidden = torch.randn(positions, args.dim, generator=generator).requires_grad_()
        targets = torch.randint(0, args.vocab, (positions,), generator=generator)
        recorded = spade_logprobs.sampling_transform_logprobs(hidden, weight, targets, settings, chunk)
        trained = spade_logprobs.full_logprobs(hidden, weight, targets, 1.0, chunk)
        server = spade_logprobs.full_logprobs(hidden, weight, targets, settings["temperature"], chunk)
        del recorded, server
        trained.sum().backward()
        return hidden.grad

    step(min(args.positions, 2 * chunk))  # kernels and code pages in place, as in a worker
    trim_heap()
    with HighWater() as high:
        step(args.positions)
    # the inputs (hidden states and their gradient) are the caller's, as a round's kept part; the chunk is what the model predicts
    inputs = args.positions * args.dim * 4 * 2
    predicted = spade_memory.output_chunk_bytes(min(chunk, args.positions), args.vocab, True)
    return {"positions": args.positions, "vocab": args.vocab, "dim": args.dim, "outputChunkTokens": chunk, "measuredBytes": max(high.peak - inputs, 0), "predictedBytes": predicted, "ratio": max(high.peak - inputs, 0) / predicted}


def measure(args):
    import torch

    from step import spade_grpo
    from step import spade_step
    from train_gguf import GgufModel, GgufPolicy, Lora

    spade_blas.use_threads(torch, args.threads)
    hyper = spade_grpo.parse_hyper(json.loads(args.hyper))
    before_load = anon_rss()
    model = GgufModel(args.model, torch.device("cpu"), torch.float32, checkpointing=hyper["checkpointing"])
    weights = spade_memory.held_weight_bytes(model)
    rng = random.Random(args.seed)
    lines = []
    for i in range(args.lines):
        tokens = [rng.randrange(model.vocab_size) for _ in range(args.length)]
        mask = [0] * (args.length - args.trained) + [1] * args.trained
        row = {"role": "agent", "tokens": tokens, "mask": mask, "advantage": 1.0 if i % 2 else -1.0, "sampling": AGENT_SAMPLING, "ref": {"runId": 1, "environmentId": 1, "episodeId": i, "turn": 0, "attempt": None}}
        lines.append(spade_grpo.parse_batch_line(row, f"random:{i + 1}"))
    # the worker's state before a round: a round has run (kernels, threads, code pages), then the heap is trimmed
    n = min(32, len(lines[0].tokens))
    warm = spade_grpo.parse_batch_line({"role": "agent", "tokens": lines[0].tokens[:n], "mask": [0] * (n - n // 2) + [1] * (n // 2), "advantage": 1.0}, "warm-up:1")
    spade_step.train_round(GgufPolicy(model, Lora.fresh(model, hyper["rank"], hyper["alpha"], hyper["targets"], hyper["seed"] + 1), hyper["outputChunkTokens"]), [warm], hyper, lambda event: None, 0)
    lora = Lora.fresh(model, hyper["rank"], hyper["alpha"], hyper["targets"], hyper["seed"])
    policy = GgufPolicy(model, lora, hyper["outputChunkTokens"])
    trim_heap()
    base = anon_rss()
    cpu, faults = time.process_time(), resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    with HighWater() as high:
        metrics = spade_step.train_round(policy, lines, hyper, lambda event: None, 1)
    cpu, faults = time.process_time() - cpu, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    measured = high.peak + weights
    predicted = spade_memory.predict(spade_memory.shape_of(model), [len(l.tokens) for l in lines], [len(l.trained) for l in lines], hyper, 4, weights, spade_memory.layer_working_bytes(model, 4))
    params = sum(t.numel() for t in [model.token_embd] + ([model.output] if model.output is not model.token_embd else []) + [t for layer in model.layers for t in layer.values() if t is not None])
    return {
        "model": os.path.basename(args.model),
        "parameters": params,
        "lines": args.lines,
        "length": args.length,
        "trained": args.trained,
        "checkpointing": hyper["checkpointing"],
        "logprobs": hyper["logprobs"],
        "measuredPeakBytes": measured,
        "predictedPeakBytes": predicted["peak"],
        "predicted": predicted,
        "ratio": measured / predicted["peak"],
        "loadBytes": base - before_load,
        "trainedTokensPerSec": metrics["tokensPerSec"],
        "seconds": metrics["seconds"],
        "cpuSeconds": cpu,
        "pageFaults": faults,
        "mmapThreshold": os.environ.get("MALLOC_MMAP_THRESHOLD_"),
    }


def suite(args):
    os.makedirs(args.suite, exist_ok=True)
    results = []
    sizes = args.sizes.split(",")
    for (size, shape, layers, vocab), tensor_type in ((row, t) for row in SUITE if row[0] in sizes for t in args.types.split(",")):
        label = f"{size} {tensor_type}"
        path = os.path.join(args.suite, f"random-{size}-{tensor_type}.gguf")
        if not os.path.exists(path):
            spade_random_model.write_random_model(path, shape, layers, vocab, tensor_type)
        command = [sys.executable, os.path.abspath(__file__), "--model", path, "--lines", str(args.lines), "--length", str(args.length), "--trained", str(args.trained), "--threads", str(args.threads), "--hyper", args.hyper]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            results.append({"label": label, "size": size, "type": tensor_type, "error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"})
            continue
        results.append({"label": label, "size": size, "type": tensor_type, **json.loads(done.stdout)})
    return {"models": results}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=None)
    parser.add_argument("--suite", default=None, help="a folder for the suite's random models")
    parser.add_argument("--types", default="F16,Q8_0,Q4_K", help="suite: the tensor types of the models, comma-separated")
    parser.add_argument("--sizes", default=",".join(row[0] for row in SUITE), help="suite: which of the sizes, comma-separated")
    parser.add_argument("--lines", type=int, default=4)
    parser.add_argument("--length", type=int, default=256)
    parser.add_argument("--trained", type=int, default=128)
    parser.add_argument("--hyper", default='{"rank": 8}')
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output-layer", dest="positions", type=int, default=None, help="measure the output layer alone over this many positions (with --vocab, --dim)")
    parser.add_argument("--vocab", type=int, default=16000)
    parser.add_argument("--dim", type=int, default=64)
    args = parser.parse_args(argv)
    if args.positions is not None:
        print(json.dumps(measure_output_layer(args)))
    elif args.suite:
        print(json.dumps(suite(args)))
    elif args.model:
        print(json.dumps(measure(args)))
    else:
        parser.error("give --model or --suite")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
