#!/usr/bin/env python3
"""SPADE's "hf" trainer: LoRA on the Hugging Face checkpoint with transformers + PEFT + PyTorch.

Reads the token-exact training batch (batch.jsonl: no chat template at training time), runs one
forward pass per sequence, and optimises the same clipped GRPO objective with truncated importance
sampling as the "gguf" trainer (resources/trainers/step/spade_grpo.py), masked to the trained tokens.
Writes the adapter in PEFT format; llama.cpp's convert_lora_to_gguf.py turns it into a GGUF LoRA.

    train_lora.py --worker [--device auto|cpu|cuda] [--dtype auto|float32|bfloat16|float16] [--threads N] [--convert-script convert_lora_to_gguf.py]

runs the persistent worker of the line protocol (README.md). The one-shot form the workbench's
trainer hook runs (`trainer.command` of `spade train`):

    train_lora.py --dataset {dataset} --base-model {baseModel} --output-dir {outputDir} --previous-adapter-dir {previousAdapterDir}

reads {dataset}/batch.jsonl, writes the PEFT adapter to {outputDir}/peft and prints `PROGRESS <0..1>`
and `METRIC <name> <value>` lines; the hook's `trainer.convert` step makes the GGUF.
"""
import argparse
import contextlib
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from runtime import spade_blas  # noqa: E402

if __name__ == "__main__":
    spade_blas.prepare()  # OpenBLAS's kernels are chosen as torch loads it: before any module below imports torch

from runtime import spade_device  # noqa: E402
from step import spade_distributed  # noqa: E402
from step import spade_grpo  # noqa: E402
from protocol import spade_protocol  # noqa: E402
from step import spade_logprobs  # noqa: E402
from step import spade_step  # noqa: E402
from step import spade_warmup  # noqa: E402
from step.spade_grpo import TrainerInputError  # noqa: E402

# The gguf trainer's projection names and their usual Hugging Face module names (llama, qwen2, qwen3, mistral, ...).
HF_MODULES = {"attn_q": "q_proj", "attn_k": "k_proj", "attn_v": "v_proj", "attn_output": "o_proj", "ffn_gate": "gate_proj", "ffn_up": "up_proj", "ffn_down": "down_proj"}
INSTALL_HINT = "pip install -r resources/trainers/requirements.txt"


def import_hf():
    """transformers and peft, imported only when a model is loaded (the protocol and batch parts work without them)."""
    try:
        import peft
        import transformers
    except ImportError as error:
        raise TrainerInputError(f"the hf trainer needs transformers and peft ({error.name} is not installed): {INSTALL_HINT}") from None
    return transformers, peft


def choose_dtype(torch, device, requested):
    """bf16 where the GPU has it (Ampere and later), fp16 on older GPUs, fp32 on the CPU; or what was asked for."""
    if requested != "auto":
        return {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[requested]
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.float32


def model_folder(path):
    """The local folder of a Hugging Face model given as a folder or a hub id.

    llama.cpp's convert_lora_to_gguf.py reads the base model's config.json from a folder; an id is
    resolved to its snapshot in the Hugging Face cache (the weights are there after the load; only
    the JSON files are fetched when they are not).
    """
    if os.path.isdir(path):
        return path
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        raise TrainerInputError(f"{path} is not a folder, and resolving a Hugging Face id needs huggingface_hub (installed with transformers): {INSTALL_HINT}") from None
    patterns = ["*.json", "*.model", "*.tiktoken", "*.txt"]
    try:
        return snapshot_download(path, allow_patterns=patterns, local_files_only=True)
    except Exception:  # noqa: BLE001 - not in the cache yet (or a partial cache): fetch the small files
        try:
            return snapshot_download(path, allow_patterns=patterns)
        except Exception as error:  # noqa: BLE001
            raise TrainerInputError(f"{path}: neither a folder nor a Hugging Face id whose files can be had ({type(error).__name__}: {error})") from None


def find_peft_dir(path):
    """The PEFT folder of a parent adapter: the folder itself, its peft/ child, or (a GGUF given) the folder it was converted from."""
    if not path:
        return None
    candidates = [path, os.path.join(path, "peft")]
    if path.endswith(".gguf"):
        candidates = [path[: -len(".gguf")] + "-peft", os.path.dirname(path), os.path.join(os.path.dirname(path), "peft")]
    for candidate in candidates:
        if candidate and os.path.exists(os.path.join(candidate, "adapter_config.json")):
            return candidate
    return None


class HfPolicy:
    #: config keys of models that scale or cap their logits after the output layer: their log-probs go through the model's own forward
    LOGIT_TRANSFORMS = ("final_logit_softcapping", "logit_scale", "logits_scaling", "output_multiplier_scale")

    def __init__(self, model, device, output_chunk=spade_logprobs.DEFAULT_CHUNK):
        self.model = model
        self.device = device
        self.output_chunk = output_chunk
        self.architecture = getattr(model.config, "model_type", "unknown")
        self.vocab_size = int(model.config.vocab_size)
        self._keep_ok = True
        self._split = self._body_and_head()
        if self._split is None:
            spade_grpo.log(f"[hf] {self.architecture}: the output layer cannot be taken apart (no body under base_model_prefix, a biased lm_head, or logits scaled / capped): the trained positions' logits go through the model's forward at once")

    def _body_and_head(self):
        """(decoder body, output weight) where the model is laid out as transformers' *ForCausalLM (the body under
        `base_model_prefix`, a bias-free `lm_head`, nothing done to the logits after it); else None."""
        lm = self.model.get_base_model() if hasattr(self.model, "get_base_model") else self.model
        prefix = getattr(lm, "base_model_prefix", None)
        body = getattr(lm, prefix, None) if prefix else None
        head = lm.get_output_embeddings() if hasattr(lm, "get_output_embeddings") else None
        weight = getattr(head, "weight", None)
        if body is None or weight is None or getattr(head, "bias", None) is not None or weight.requires_grad:
            return None
        if any(getattr(lm.config, key, None) not in (None, 1, 1.0) for key in self.LOGIT_TRANSFORMS):
            return None
        return body, weight

    def logprobs(self, line, grad, adapter=True, definitions=(spade_logprobs.full(1.0),)):
        """The line's trained tokens' log-probs under each definition (spade_logprobs), from one forward pass.

        The decoder body gives the trained positions' hidden states, and spade_logprobs takes them
        through the output layer in chunks of `output_chunk` positions (never positions x vocabulary
        at once, in the forward or the backward pass), as the gguf trainer does.
        """
        import torch

        last = line.trained[-1]
        ids = torch.tensor([line.tokens[:last]], dtype=torch.long, device=self.device)
        positions = torch.tensor(line.trained, dtype=torch.long, device=self.device) - 1
        targets = torch.tensor([line.tokens[t] for t in line.trained], dtype=torch.long, device=self.device)
        # the base model's log-probs (the KL reference): PEFT's context that switches the LoRA off
        off = self.model.disable_adapter() if not adapter and hasattr(self.model, "disable_adapter") else contextlib.nullcontext()
        with torch.set_grad_enabled(grad), off:
            if self._split is not None:
                body, weight = self._split
                hidden = body(input_ids=ids, use_cache=False).last_hidden_state[0, positions]
                return [spade_logprobs.logprobs(hidden, weight, targets, definition, self.output_chunk) for definition in definitions]
            logits = None
            if self._keep_ok:
                try:
                    # only the rows that predict trained tokens go through the output layer (transformers >= 4.50)
                    logits = self.model(input_ids=ids, logits_to_keep=positions, use_cache=False).logits[0]
                except TypeError:
                    self._keep_ok = False
                if logits is not None and logits.shape[0] != positions.shape[0]:
                    # an older transformers took the argument and ignored it: the logits of every position came back
                    spade_grpo.log(f"[hf] this transformers ignores logits_to_keep (got {logits.shape[0]} rows for {positions.shape[0]} positions): every position goes through the output layer (transformers >= 4.50 keeps only the trained ones)")
                    self._keep_ok = False
                    logits = logits[positions]
            if logits is None:
                logits = self.model(input_ids=ids, use_cache=False).logits[0, positions]
            return [spade_logprobs.logprobs_from_logits(logits, targets, definition) for definition in definitions]

    def trainable_parameters(self):
        return [p for p in self.model.parameters() if p.requires_grad]


class HfTrainer:
    name = "hf"
    architecture = None

    def __init__(self, device="auto", dtype="auto", convert_script=None, python=None):
        import torch

        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = torch.device(device)
        self.dtype = choose_dtype(torch, self.device, dtype)
        self.convert_script = convert_script
        self.python = python or sys.executable
        self.base = None
        self.base_path = None
        self._offloaded = False
        #: spade_distributed.ProcessGroup when several ranks train one round (torchrun), else None
        self.group = None

    def load_base(self, path):
        transformers, _ = import_hf()
        if self.base is not None and self.base_path == path:
            if self._offloaded:
                spade_device.restore(self.base, self.device)
                self._offloaded = False
            return self.base
        self.base = None
        spade_grpo.log(f"[hf] loading {path} on {self.device} as {self.dtype}")
        try:
            model = transformers.AutoModelForCausalLM.from_pretrained(path, dtype=self.dtype)
        except TypeError:  # transformers < 4.56 calls it torch_dtype
            model = transformers.AutoModelForCausalLM.from_pretrained(path, torch_dtype=self.dtype)
        except OSError as error:
            raise TrainerInputError(f"{path}: cannot load the Hugging Face model ({error})") from None
        model.to(self.device)
        model.config.use_cache = False
        self.base, self.base_path, self._offloaded = model, path, False
        self.architecture = getattr(model.config, "model_type", None)
        return model

    def release_device(self):
        """After a command on a GPU: the base model to host memory and the allocator emptied, so llama.cpp's reload has the card."""
        if self.base is None or self._offloaded or self.device.type != "cuda":
            return
        reserved = spade_device.offload(self.base, self.device)
        self._offloaded = True
        spade_grpo.log(f"[hf] gave the GPU back: {reserved} bytes still reserved")

    def wrap(self, base, parent, hyper):
        _, peft = import_hf()
        parent_dir = find_peft_dir(parent)
        if parent and not parent_dir:
            raise TrainerInputError(f"{parent}: no PEFT adapter (adapter_config.json) there or next to it: the hf trainer continues from PEFT adapters")
        if parent_dir:
            spade_grpo.log(f"[hf] continuing from {parent_dir}")
            model = peft.PeftModel.from_pretrained(base, parent_dir, is_trainable=True)
        else:
            config = peft.LoraConfig(r=hyper["rank"], lora_alpha=hyper["alpha"], lora_dropout=0.0, target_modules=[HF_MODULES[t] for t in hyper["targets"]], task_type="CAUSAL_LM")
            model = peft.get_peft_model(base, config)
        # keep the LoRA weights in fp32 whatever the base dtype (stable updates with bf16/fp16 bases)
        for p in model.parameters():
            if p.requires_grad:
                p.data = p.data.float()
        model.train()
        return model

    def output_dirs(self, output):
        """(peft dir, gguf path or None) for a train command's `output`."""
        if output.endswith(".gguf"):
            if not self.convert_script:
                raise TrainerInputError(f"output {output} is a GGUF file, but the hf trainer writes PEFT adapters: start it with --convert-script <llama.cpp>/convert_lora_to_gguf.py, or give a folder")
            return output[: -len(".gguf")] + "-peft", output
        return output, (os.path.join(output, "adapter.gguf") if self.convert_script else None)

    def convert(self, peft_dir, gguf_path, base_model):
        command = [self.python, self.convert_script, "--base", model_folder(base_model), "--outfile", gguf_path, "--outtype", "f32", peft_dir]
        spade_grpo.log("[hf] converting: " + " ".join(command))
        done = subprocess.run(command, stdout=sys.stderr, stderr=sys.stderr)
        if done.returncode != 0 or not os.path.exists(gguf_path):
            raise RuntimeError(f"the GGUF conversion failed (exit {done.returncode}): {' '.join(command)}")

    def train(self, cmd, hyper, emit):
        header, lines = spade_grpo.read_batch(cmd["batch"])
        if not lines:
            raise spade_grpo.BatchFormatError(f"{cmd['batch']}: the batch has no sequences")
        peft_dir, gguf_path = self.output_dirs(cmd["output"])
        base = self.load_base(cmd["baseModel"])
        spade_grpo.seed_everything(hyper["seed"])
        model = self.wrap(base, cmd.get("parentAdapter"), hyper)
        try:
            if hyper["checkpointing"] and hasattr(model, "gradient_checkpointing_enable"):
                model.gradient_checkpointing_enable()
                if hasattr(model, "enable_input_require_grads"):
                    model.enable_input_require_grads()  # frozen embeddings: checkpointed blocks still need a grad path
            # several ranks (torchrun): each computes its share of every step, rank 0 writes the adapter and its optimiser state
            leader = self.group is None or self.group.leader
            metrics = spade_step.train_round(HfPolicy(model, self.device, hyper["outputChunkTokens"]), lines, hyper, emit, cmd["round"], spade_grpo.log, parent_adapter=cmd.get("parentAdapter"), output=cmd["output"] if leader else None, batch_header=header, group=self.group)
            if leader:
                model.save_pretrained(peft_dir)
        finally:
            self.base = model.unload()  # the base model again, without LoRA layers, for the next round
            self.release_device()
        if gguf_path and leader:
            self.convert(peft_dir, gguf_path, cmd["baseModel"])
        metrics["ranks"] = 1 if self.group is None else self.group.world
        emit({"type": "metrics", "round": cmd["round"], "metrics": metrics})
        emit({"type": "adapter", "round": cmd["round"], "path": gguf_path or peft_dir})

    def logprobs(self, cmd, emit):
        if cmd.get("rounding") is not None:
            raise TrainerInputError(f"logprobs: rounding {cmd['rounding']!r} is emulated by the gguf trainer only (the hf trainer computes its model's own function)")
        _, lines = spade_grpo.read_batch(cmd["batch"])
        base = self.load_base(cmd["baseModel"])
        model = base
        if cmd.get("adapter"):
            _, peft = import_hf()
            model = peft.PeftModel.from_pretrained(base, find_peft_dir(cmd["adapter"]) or cmd["adapter"])
        try:
            spade_grpo.check_vocab(lines, int(model.config.vocab_size))
            values = spade_step.recompute(HfPolicy(model, self.device), lines, spade_step.recorded_definition, spade_grpo.DEFAULT_HYPER["microBatchTokens"])
        finally:
            if model is not base:
                self.base = model.unload()
            self.release_device()
        recorded = [x for line in lines for x in line.trained_behavior()]
        if any(x is not None for x in recorded):
            emit({"type": "mismatch", **spade_grpo.measure_mismatch(recorded, [x for v in values for x in v])})
        spade_grpo.write_logprobs(cmd["output"], lines, values)


def one_shot(args):
    """The trainer hook's form: {dataset}/batch.jsonl -> {outputDir}/peft, PROGRESS / METRIC lines."""
    manifest_path = os.path.join(args.dataset, "manifest.json") if args.dataset else ""
    files = []
    if manifest_path and os.path.exists(manifest_path):
        with open(manifest_path, encoding="utf-8") as f:
            files = json.load(f).get("files", [])
        print(f"dataset {args.dataset}: " + ", ".join(f"{x['path']} ({x['lines']} lines)" for x in files), flush=True)
    batch = args.batch or os.path.join(args.dataset, "batch.jsonl")
    if not os.path.exists(batch):
        print(f"nothing to train on: {batch} does not exist (export the \"batch\" format: the token-exact training batch)", flush=True)
        return 2
    _, lines = spade_grpo.read_batch(batch)
    if not lines:
        print(f"nothing to train on: {batch} has no sequences", flush=True)
        return 2
    hyper = spade_grpo.parse_hyper({"learningRate": args.learning_rate, "rank": args.rank, "alpha": args.alpha or spade_grpo.DEFAULT_HYPER["alpha"], "epochs": args.epochs, "seed": args.seed, "maxTokensPerBatch": args.max_tokens_per_batch})
    trainer = HfTrainer(args.device, args.dtype)
    cmd = {"type": "train", "round": 1, "batch": batch, "baseModel": args.base_model, "parentAdapter": args.previous_adapter_dir or None, "output": os.path.join(args.output_dir, "peft"), "hyper": hyper}
    failed = []

    def emit(obj):
        print(json.dumps(obj), flush=True)
        if obj["type"] == "progress" and obj["steps"]:
            print(f"PROGRESS {obj['step'] / obj['steps']:.4f}", flush=True)
        elif obj["type"] == "metrics":
            for name, value in obj["metrics"].items():
                print(f"METRIC {name} {value}", flush=True)
        elif obj["type"] == "error":
            failed.append(obj["message"])

    spade_protocol.serve(trainer, stdin=[json.dumps(cmd)], emit=emit)
    if failed:
        print(f"failed: {failed[0]}", file=sys.stderr, flush=True)
        return 1
    print(f"saved the PEFT adapter to {cmd['output']}", flush=True)
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worker", action="store_true", help="run the persistent line-protocol worker on stdin/stdout")
    parser.add_argument("--device", default="auto", help="auto (cuda when available), cpu, cuda, cuda:1, ...")
    parser.add_argument("--dtype", default="auto", choices=["auto", "float32", "bfloat16", "float16"], help="auto: bfloat16 on Ampere+ GPUs, float16 on older GPUs, float32 on the CPU")
    parser.add_argument("--threads", type=int, default=0, help="CPU threads for PyTorch (0: its default)")
    parser.add_argument("--convert-script", default=None, help="worker: llama.cpp's convert_lora_to_gguf.py, to write each adapter as a GGUF LoRA too")
    parser.add_argument("--base-model", default=None, help="Hugging Face model folder or id ({baseModel})")
    parser.add_argument("--dataset", default=None, help="one-shot: the export folder with batch.jsonl ({dataset})")
    parser.add_argument("--batch", default=None, help="one-shot: a batch JSONL (instead of {dataset}/batch.jsonl)")
    parser.add_argument("--output-dir", default=None, help="one-shot: the PEFT adapter goes to <output-dir>/peft ({outputDir})")
    parser.add_argument("--previous-adapter-dir", default="", help="one-shot: the parent adapter's trainer output ({previousAdapterDir}); empty: start fresh")
    parser.add_argument("--rank", type=int, default=spade_grpo.DEFAULT_HYPER["rank"], help="LoRA rank (default 32)")
    parser.add_argument("--alpha", type=float, default=0, help="LoRA alpha (default 32)")
    parser.add_argument("--learning-rate", type=float, default=spade_grpo.DEFAULT_HYPER["learningRate"], help="default 1e-5 (LoRA: about 10x the reference's full fine-tune rate)")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--max-tokens-per-batch", type=int, default=None, help="tokens per optimiser step (default: none, one step on the whole batch)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.worker:
        import torch

        spade_blas.use_threads(torch, args.threads)
        spade_grpo.log(f"[hf] {spade_blas.describe(spade_blas.report())}")
        spade_grpo.log(f"[hf] warmed up PyTorch in {spade_warmup.warm_up(torch):.2f} s")
        # under torchrun (training.trainer.devices > 1): every rank a worker, rank 0 reading the commands and speaking
        device = spade_distributed.local_device(args.device)
        group = spade_distributed.from_environment("cuda" if str(device).startswith("cuda") or (device == "auto" and torch.cuda.is_available()) else "cpu")
        emit = spade_distributed.leader_only(group, spade_protocol.Emitter())
        trainer = HfTrainer(device, args.dtype, args.convert_script)
        trainer.group = group
        if args.base_model:
            try:
                trainer.load_base(args.base_model)
                trainer.release_device()
            except TrainerInputError as error:
                emit({"type": "error", "round": None, "message": str(error)})
                return 2
        return spade_protocol.serve(trainer, stdin=None if group is None else spade_distributed.worker_commands(group, sys.stdin), emit=emit)
    if not (args.dataset or args.batch) or not args.base_model or not args.output_dir:
        parser.error("give --worker, or --dataset (or --batch), --base-model and --output-dir")
    return one_shot(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
