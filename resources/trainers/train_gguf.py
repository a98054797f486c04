#!/usr/bin/env python3
"""SPADE's built-in trainer "gguf": LoRA straight on the GGUF you run (PyTorch and NumPy only).

Reads the base weights from the GGUF file and computes the forward pass of the llama family the
way llama.cpp does (spade_gguf_model), trains LoRA adapters on the attention and MLP projections
(spade_lora) with the clipped GRPO objective and truncated importance sampling against the
recorded behaviour log-probs (spade_gguf_policy, spade_step), and writes the adapter as a GGUF LoRA
llama.cpp loads directly. This file is the worker: it keeps the model between commands and answers
the line protocol.

    train_gguf.py --worker [--device auto|cpu|cuda] [--dtype auto|float32|bfloat16|float16] [--threads N] [--base-model M.gguf]

runs the persistent worker of the line protocol (see README.md); the one-shot form

    train_gguf.py --batch batch.jsonl --base-model M.gguf --output adapter.gguf [--parent-adapter P.gguf] [--hyper '{...}']

runs one round and prints the same protocol lines.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from runtime import spade_blas  # noqa: E402

if __name__ == "__main__":
    spade_blas.prepare()  # OpenBLAS's kernels are chosen as torch loads it: before any module below imports torch

from runtime import spade_device  # noqa: E402
from model import spade_weights  # noqa: E402
from step import spade_distributed  # noqa: E402
from step import spade_grpo  # noqa: E402
from protocol import spade_protocol  # noqa: E402
from model import spade_llama_rounding  # noqa: E402
from runtime import spade_memory  # noqa: E402
from step import spade_step  # noqa: E402
from step import spade_warmup  # noqa: E402
from model.spade_gguf_model import GgufModel  # noqa: E402
from model.spade_gguf_policy import GgufPolicy  # noqa: E402
from step.spade_grpo import TrainerInputError  # noqa: E402
from model.spade_lora import Lora  # noqa: E402


def _torch():
    try:
        import torch
    except ImportError:
        sys.stderr.write("train_gguf.py needs PyTorch (Debian: apt-get install python3-torch; else pip install torch)\n")
        raise
    return torch


class GgufTrainer:
    name = "gguf"

    def __init__(self, device="auto", dtype="auto", base_model=None, checkpointing="auto", weights="quantized"):
        torch = _torch()
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = torch.device(device)
        if dtype == "auto":
            dtype = "bfloat16" if self.device.type == "cuda" and torch.cuda.is_bf16_supported() else "float32"
        self.dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[dtype]
        # "auto": the train command's hyper.checkpointing decides; "on" / "off" override it
        self.checkpointing = None if checkpointing == "auto" else checkpointing == "on"
        self.weights = weights
        #: spade_distributed.ProcessGroup when several ranks train one round (torchrun), else None
        self.group = None
        self.model = None
        self._key = None
        self._offloaded = False
        if base_model:
            self.model_for(base_model)
            self.release_device()

    @property
    def architecture(self):
        return self.model.architecture if self.model else None

    def model_for(self, path):
        try:
            st = os.stat(path)
        except OSError as error:
            raise TrainerInputError(f"{path}: cannot read the base model ({error.strerror})") from None
        key = (os.path.realpath(path), st.st_size, st.st_mtime_ns)
        if key == self._key and self._offloaded:
            spade_device.restore(self.model, self.device)
            self._offloaded = False
        if key != self._key:
            self.model = None
            spade_grpo.log(f"[gguf] loading {path} on {self.device} as {self.dtype}, weights {self.weights}")
            self.model = GgufModel(path, self.device, self.dtype, checkpointing=True if self.checkpointing is None else self.checkpointing, weights=self.weights)
            self._key = key
            self._offloaded = False
            m = self.model
            spade_grpo.log(f"[gguf] {m.architecture}: {m.n_layer} blocks, dim {m.n_embd}, {m.n_head} heads / {m.n_head_kv} kv, vocab {m.vocab_size}, rope {'neox' if m.neox else 'normal'} dim {m.rope_dim}")
        return self.model

    def release_device(self):
        """After a command on a GPU: the weights to host memory and the allocator emptied, so llama.cpp's reload has the card."""
        if self.model is None or self._offloaded or self.device.type != "cuda":
            return
        reserved = spade_device.offload(self.model, self.device)
        self._offloaded = True
        spade_grpo.log(f"[gguf] gave the GPU back: {reserved} bytes still reserved")

    def _batch(self, path):
        header, lines = spade_grpo.read_batch(path)
        if not lines:
            raise spade_grpo.BatchFormatError(f"{path}: the batch has no sequences")
        return header, lines

    def train(self, cmd, hyper, emit):
        try:
            self._train(cmd, hyper, emit)
        finally:
            self.release_device()

    def _train(self, cmd, hyper, emit):
        # Where a round's time goes (seconds per phase, in the metrics): model load, batch read, and the
        # adapter write here; the recomputation pass, the forward and backward passes and the optimiser in spade_step.
        clock = {"start": time.time()}
        model = self.model_for(cmd["baseModel"])
        clock["loaded"] = time.time()
        header, lines = self._batch(cmd["batch"])
        clock["read"] = time.time()
        spade_grpo.seed_everything(hyper["seed"])
        parent = cmd.get("parentAdapter")
        if parent:
            lora = Lora.from_file(parent, model)
            if lora.rank != hyper["rank"] or lora.alpha != float(hyper["alpha"]):
                spade_grpo.log(f"[gguf] continuing from {parent}: its rank {lora.rank} and alpha {lora.alpha} are kept (hyper asks {hyper['rank']} / {hyper['alpha']})")
        else:
            lora = Lora.fresh(model, hyper["rank"], hyper["alpha"], hyper["targets"], hyper["seed"])
        model.checkpointing = hyper["checkpointing"] if self.checkpointing is None else self.checkpointing
        parts = self._check_memory(model, [len(l.tokens) for l in lines], [len(l.trained) for l in lines], hyper)
        policy = GgufPolicy(model, lora, hyper["outputChunkTokens"])
        # several ranks (torchrun): each computes its share of every step, rank 0 writes the adapter and its optimiser state
        leader = self.group is None or self.group.leader
        metrics = spade_step.train_round(policy, lines, hyper, emit, cmd["round"], spade_grpo.log, parent_adapter=parent, output=cmd["output"] if leader else None, batch_header=header, group=self.group)
        clock["trained"] = time.time()
        metrics["memoryPredictedBytes"] = parts["peak"]
        metrics["ranks"] = 1 if self.group is None else self.group.world
        if leader:
            lora.save(cmd["output"], model.architecture)
        clock["written"] = time.time()
        metrics.update({
            "loadSeconds": clock["loaded"] - clock["start"],
            "readSeconds": clock["read"] - clock["loaded"],
            "writeSeconds": clock["written"] - clock["trained"],
        })
        emit({"type": "metrics", "round": cmd["round"], "metrics": metrics})
        emit({"type": "adapter", "round": cmd["round"], "path": cmd["output"]})

    def _check_memory(self, model, lengths, trained, hyper):
        """The memory model's peak for this batch, logged, and refused when it does not fit the free memory."""
        checkpointing = hyper["checkpointing"] if self.checkpointing is None else self.checkpointing
        settings = dict(hyper, checkpointing=checkpointing)
        weights = spade_memory.held_weight_bytes(model)
        dtype_bytes = _torch().empty((), dtype=model.dtype).element_size()
        working = spade_memory.layer_working_bytes(model, dtype_bytes)
        parts = spade_memory.predict(spade_memory.shape_of(model), lengths, trained, settings, dtype_bytes, weights, working, fused_attention=not model.kv_f16 and self.device.type == "cuda")
        free = spade_memory.free_memory(self.device)
        # the weights are already held: what must fit in the free memory is the rest
        available = None if free is None else free + weights
        spade_grpo.log("[gguf] " + spade_memory.describe(parts, available, str(self.device)))
        spade_memory.check(parts, available, settings, str(self.device))
        return parts

    def memory(self, cmd, hyper, emit):
        """The largest round a run can give (a micro-batch of microBatchTokens, or one sequence of `longest` tokens), before any rollout."""
        model = self.model_for(cmd["baseModel"])
        lengths, trained = spade_memory.worst_case(cmd["longest"], hyper)
        parts = self._check_memory(model, lengths, trained, hyper)
        free = spade_memory.free_memory(self.device)
        emit({"type": "memory", **spade_memory.report(parts, None if free is None else free + spade_memory.held_weight_bytes(model))})

    def logprobs(self, cmd, emit):
        try:
            self._logprobs(cmd, emit)
        finally:
            self.release_device()

    def _logprobs(self, cmd, emit):
        model = self.model_for(cmd["baseModel"])
        _, lines = self._batch(cmd["batch"])
        spade_grpo.check_vocab(lines, model.vocab_size)
        lora = Lora.from_file(cmd["adapter"], model) if cmd.get("adapter") else None
        try:
            model.rounding = spade_llama_rounding.rounding_for(cmd.get("rounding"))
            values = spade_step.recompute(GgufPolicy(model, lora), lines, spade_step.recorded_definition, spade_grpo.DEFAULT_HYPER["microBatchTokens"])
        except spade_llama_rounding.RoundingError as error:
            raise TrainerInputError(f"{cmd['baseModel']}: {error}") from None
        finally:
            model.rounding = None
        recorded = [x for line in lines for x in line.trained_behavior()]
        if any(x is not None for x in recorded):
            emit({"type": "mismatch", **spade_grpo.measure_mismatch(recorded, [x for v in values for x in v])})
        spade_grpo.write_logprobs(cmd["output"], lines, values)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worker", action="store_true", help="run the persistent line-protocol worker on stdin/stdout")
    parser.add_argument("--device", default="auto", help="auto (cuda when available), cpu, cuda, cuda:1, ...")
    parser.add_argument("--dtype", default="auto", choices=["auto", "float32", "bfloat16", "float16"], help="base weights' compute type; auto: bfloat16 on a GPU that has it, else float32")
    parser.add_argument("--threads", type=int, default=0, help="CPU threads for PyTorch (0: its default)")
    parser.add_argument("--checkpointing", default="auto", choices=["auto", "on", "off"], help="recompute each block's activations in the backward pass (memory); auto: as the train command's hyper.checkpointing (default on)")
    parser.add_argument("--weights", default="quantized", choices=list(spade_weights.HOLDINGS), help="base weights on the device: quantized (GGUF bytes, dequantised per layer in the forward and backward pass) or full (a dequantised copy, faster where it fits)")
    parser.add_argument("--base-model", default=None, help="GGUF base model (worker: loaded at start)")
    parser.add_argument("--batch", default=None, help="one-shot: the batch JSONL")
    parser.add_argument("--output", default=None, help="one-shot: the adapter GGUF to write")
    parser.add_argument("--parent-adapter", default=None, help="one-shot: continue from this GGUF LoRA")
    parser.add_argument("--hyper", default="{}", help="one-shot: the hyper object as JSON")
    parser.add_argument("--round", type=int, default=1)
    args = parser.parse_args(argv)
    torch = _torch()
    spade_blas.use_threads(torch, args.threads)
    emit = spade_protocol.Emitter()
    if args.worker:
        spade_grpo.log(f"[gguf] {spade_blas.describe(spade_blas.report())}")
        spade_grpo.log(f"[gguf] warmed up PyTorch in {spade_warmup.warm_up(torch):.2f} s")
        # under torchrun (training.trainer.devices > 1): every rank a worker, rank 0 reading the commands and speaking
        device = spade_distributed.local_device(args.device)
        group = spade_distributed.from_environment("cuda" if str(device).startswith("cuda") else "cpu")
        emit = spade_distributed.leader_only(group, emit)
        try:
            trainer = GgufTrainer(device, args.dtype, args.base_model, args.checkpointing, args.weights)
        except TrainerInputError as error:
            emit({"type": "error", "round": None, "message": str(error)})
            return 2
        trainer.group = group
        return spade_protocol.serve(trainer, stdin=None if group is None else spade_distributed.worker_commands(group, sys.stdin), emit=emit)
    if not (args.batch and args.base_model and args.output):
        parser.error("give --worker, or --batch, --base-model and --output")
    line = json.dumps({"type": "train", "round": args.round, "batch": args.batch, "baseModel": args.base_model, "parentAdapter": args.parent_adapter, "output": args.output, "hyper": json.loads(args.hyper)})
    failed = []
    # under torchrun (`torchrun --nproc_per_node N train_gguf.py --batch ...`): data-parallel, one process per device (spade_distributed)
    device = spade_distributed.local_device(args.device)
    group = spade_distributed.from_environment("cuda" if str(device).startswith("cuda") else "cpu")
    trainer = GgufTrainer(device, args.dtype, checkpointing=args.checkpointing, weights=args.weights)
    trainer.group = group
    speaks = group is None or group.leader
    spade_protocol.serve(trainer, stdin=[line], emit=lambda obj: (failed.append(obj) if obj["type"] == "error" else None, emit(obj) if speaks or obj["type"] == "error" else None))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
