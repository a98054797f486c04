#!/usr/bin/env python3
"""Reference LoRA trainer for SPADE Workbench exports (one GPU, TRL + PEFT).

Reads a `spade export` / `spade train` dataset folder and trains a LoRA adapter in two stages:

1. SFT on the best plays (`trl-sft.jsonl`, rejection sampling): every assistant turn becomes a
   prompt/completion pair, so only the model's own replies are trained on (TRL's completion-only loss).
2. GRPO-style policy gradient on the play groups (`grpo.jsonl`): loss = -advantage * mean log-prob of
   each reply, with the workbench's group-normalised advantages. On freshly sampled plays and one
   update per batch this is GRPO's objective (the importance ratio is 1, so clipping does nothing);
   KL 0 as in the SPADE reference.

The adapter is saved in PEFT format to <output-dir>/peft; the workbench's `trainer.convert` command
turns it into a GGUF LoRA with llama.cpp's convert_lora_to_gguf.py (see README.md).
Progress and metrics go to stdout as `PROGRESS <0..1>` and `METRIC <name> <value>` lines.
"""
import argparse
import json
import os
import random
import sys


def log(line):
    print(line, flush=True)


def read_jsonl(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def turn_pairs(messages):
    """Each assistant message with the messages before it: (prompt, completion) pairs."""
    return [(messages[:i], [m]) for i, m in enumerate(messages) if m["role"] == "assistant"]


def find_peft_dir(path):
    for candidate in (path, os.path.join(path, "peft")):
        if candidate and os.path.exists(os.path.join(candidate, "adapter_config.json")):
            return candidate
    return None


def load_model(args):
    import torch
    from peft import LoraConfig, PeftModel, get_peft_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(args.base_model)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    dtype = torch.bfloat16 if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else torch.float32
    model = AutoModelForCausalLM.from_pretrained(args.base_model, torch_dtype=dtype)
    previous = find_peft_dir(args.previous_adapter_dir) if args.previous_adapter_dir else None
    if previous:
        log(f"continuing from the previous adapter {previous}")
        model = PeftModel.from_pretrained(model, previous, is_trainable=True)
    else:
        config = LoraConfig(r=args.rank, lora_alpha=args.alpha or 2 * args.rank, lora_dropout=0.05, target_modules="all-linear", task_type="CAUSAL_LM")
        model = get_peft_model(model, config)
    if torch.cuda.is_available():
        model = model.to("cuda")
    return model, tokenizer


def sft_stage(model, tokenizer, lines, args, progress):
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    pairs = [{"prompt": p, "completion": c} for line in lines for p, c in turn_pairs(line["messages"])]
    if not pairs:
        log("SFT: no successful plays to train on, skipped")
        return
    log(f"SFT: {len(lines)} plays, {len(pairs)} replies")
    config = SFTConfig(
        output_dir=os.path.join(args.output_dir, "sft-checkpoints"),
        num_train_epochs=args.epochs,
        learning_rate=args.sft_lr,
        per_device_train_batch_size=args.batch_size,
        gradient_accumulation_steps=args.grad_accum,
        max_length=args.max_length,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
    )
    trainer = SFTTrainer(model=model, args=config, train_dataset=Dataset.from_list(pairs), processing_class=tokenizer)
    result = trainer.train()
    log(f"METRIC sft_loss {result.training_loss:.6f}")
    progress(0.5)


def reply_logprob(model, tokenizer, prompt, completion, max_length):
    """Mean log-probability of the completion's tokens given the prompt, with gradients."""
    import torch

    prompt_ids = tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=True)
    full_ids = tokenizer.apply_chat_template(prompt + completion, tokenize=True)[:max_length]
    if len(full_ids) <= len(prompt_ids):
        return None
    ids = torch.tensor([full_ids], device=model.device)
    logits = model(input_ids=ids).logits[0, :-1].float()
    targets = ids[0, 1:]
    logprobs = torch.log_softmax(logits, dim=-1).gather(1, targets.unsqueeze(1)).squeeze(1)
    return logprobs[len(prompt_ids) - 1 :].mean()


def policy_gradient_stage(model, tokenizer, groups, args, progress):
    import torch

    plays = [(play["advantage"], play["messages"]) for group in groups for play in group["plays"]]
    if not plays:
        log("GRPO: no groups with a learning signal, skipped")
        return
    log(f"GRPO: {len(groups)} groups, {len(plays)} plays")
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.pg_lr)
    model.train()
    random.Random(args.seed).shuffle(plays)
    steps = len(plays) * args.epochs
    done = 0
    for _ in range(args.epochs):
        for i, (advantage, messages) in enumerate(plays):
            terms = [reply_logprob(model, tokenizer, p, c, args.max_length) for p, c in turn_pairs(messages)]
            terms = [t for t in terms if t is not None]
            if terms:
                loss = -advantage * torch.stack(terms).mean() / args.grad_accum
                loss.backward()
                log(f"METRIC pg_loss {loss.item() * args.grad_accum:.6f}")
            if (i + 1) % args.grad_accum == 0 or i == len(plays) - 1:
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                optimizer.zero_grad()
            done += 1
            progress(0.5 + 0.5 * done / steps)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", required=True, help="the export folder ({dataset})")
    parser.add_argument("--base-model", required=True, help="Hugging Face model id or folder ({baseModel})")
    parser.add_argument("--output-dir", required=True, help="where the PEFT adapter goes ({outputDir})")
    parser.add_argument("--previous-adapter-dir", default="", help="the parent adapter's trainer output ({previousAdapterDir}); empty: start fresh")
    parser.add_argument("--stages", default="sft,grpo", help="comma-separated: sft, grpo")
    parser.add_argument("--rank", type=int, default=32)
    parser.add_argument("--alpha", type=int, default=0, help="LoRA alpha; default 2 * rank")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--sft-lr", type=float, default=1e-5)
    parser.add_argument("--pg-lr", type=float, default=1e-6, help="SPADE's reference learning rate")
    parser.add_argument("--batch-size", type=int, default=1)
    parser.add_argument("--grad-accum", type=int, default=8)
    parser.add_argument("--max-length", type=int, default=8192)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    with open(os.path.join(args.dataset, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    log(f"dataset {args.dataset}: " + ", ".join(f"{x['path']} ({x['lines']} lines)" for x in manifest["files"]))
    stages = {s.strip() for s in args.stages.split(",") if s.strip()}
    sft_lines = read_jsonl(os.path.join(args.dataset, "trl-sft.jsonl")) if "sft" in stages else []
    groups = read_jsonl(os.path.join(args.dataset, "grpo.jsonl")) if "grpo" in stages else []
    if not sft_lines and not groups:
        log("nothing to train on (no trl-sft.jsonl or grpo.jsonl lines)")
        return 2

    import torch

    torch.manual_seed(args.seed)
    model, tokenizer = load_model(args)
    progress = lambda fraction: log(f"PROGRESS {max(0.0, min(1.0, fraction)):.4f}")
    progress(0.0)
    sft_stage(model, tokenizer, sft_lines, args, progress)
    policy_gradient_stage(model, tokenizer, groups, args, progress)
    peft_dir = os.path.join(args.output_dir, "peft")
    model.save_pretrained(peft_dir)
    tokenizer.save_pretrained(peft_dir)
    log(f"saved the PEFT adapter to {peft_dir}")
    progress(1.0)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
