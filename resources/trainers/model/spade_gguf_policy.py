"""The policy the gguf trainer's GRPO round trains: the base model (spade_gguf_model) plus an optional LoRA (spade_lora), as log-probs of trained tokens."""
import torch

from step import spade_logprobs


class GgufPolicy:
    """The policy the GRPO round trains: the base model plus (optionally) a LoRA."""

    def __init__(self, model, lora, output_chunk=spade_logprobs.DEFAULT_CHUNK):
        self.model = model
        self.lora = lora
        self.output_chunk = output_chunk
        self.architecture = model.architecture
        self.vocab_size = model.vocab_size

    def logprobs(self, line, grad, adapter=True, definitions=(spade_logprobs.full(1.0),)):
        return self.logprobs_many([line], grad, adapter, lambda _: definitions)[0]

    def logprobs_many(self, lines, grad, adapter=True, definitions=lambda line: [spade_logprobs.full(1.0)]):
        """Per line, its trained tokens' log-probs under each of definitions(line), from one padded forward pass."""
        device = self.model.device
        sequences = []
        for line in lines:
            tokens = torch.tensor(line.tokens, dtype=torch.long, device=device)
            trained = torch.tensor(line.trained, dtype=torch.long, device=device)
            sequences.append((tokens, trained - 1))
        lora = self.lora if adapter else None
        with torch.set_grad_enabled(grad):
            hidden = self.model.hidden_at(sequences, lora)
            rounding = self.model.rounding
            if rounding is not None:  # the agreement check's emulation (no gradient, small models): whole logit rows, as llama.cpp's
                return [
                    [spade_logprobs.logprobs_from_logits(rounding.matmul(self.model.output, h), tokens[positions + 1], definition) for definition in definitions(line)]
                    for h, (tokens, positions), line in zip(hidden, sequences, lines)
                ]
            # The output layer in the compute dtype (spade_logprobs slices it by positions, never by vocabulary).
            weight = self.model.output.dense()
            return [
                [spade_logprobs.logprobs(h, weight, tokens[positions + 1], definition, self.output_chunk) for definition in definitions(line)]
                for h, (tokens, positions), line in zip(hidden, sequences, lines)
            ]

    def trainable_parameters(self):
        return list(self.lora.parameters()) if self.lora else []
