"""Shared prompts computed once: the layout of the gguf trainer's forward pass over a group of sequences.

A GRPO group's plays share their prompt: 16 plays of one game are 16 copies of the same prompt
tokens followed by 16 different replies. Every position before a line's first trained prediction
is needed only for its keys and values, and a causal model computes them identically in every
copy. `PrefixLayout` puts each such prompt in the forward pass once:

- lines whose untrained beginnings (the tokens before their first predicting position) are equal
  and non-empty share one *prefix row*; the rest of each line is its *suffix row*, whose tokens
  attend to their prefix row's keys and values and causally to their own;
- a line that shares its beginning with no other line has no prefix row (its whole length is its
  suffix row), so one line, or lines that share nothing, compute as before;
- a batch where sharing would make more rows, or longer attention, than padding every line to the
  longest (a long unshared line beside a long shared prompt) is not shared: the memory model's
  bound (lines x longest) always holds.

The tokens go through the projections as one flat [rows, dim] tensor (the prefix rows, each padded
to the longest prefix, then the suffix rows, padded to the longest suffix), with each token's own
RoPE position. Every suffix token sees exactly the keys it sees in its own sequence, so the hidden
states, and the gradients that flow back through the shared keys and values (summed over the
group), are those of the separate passes up to float rounding.

Only PyTorch and the standard library are imported here.
"""
import torch


class PrefixLayout:
    """Where each token of `sequences` ((tokens, positions) pairs, positions: the hidden states wanted) sits in one flat forward pass."""

    def __init__(self, sequences, device):
        cuts, keys = [], []
        for tokens, positions in sequences:
            cut = int(positions.min())
            cuts.append(cut)
            keys.append(tuple(tokens[:cut].tolist()) if cut > 0 else None)
        counts = {}
        for key in keys:
            if key is not None:
                counts[key] = counts.get(key, 0) + 1
        prefix_of, prefixes = [], {}
        for key in keys:
            if key is not None and counts[key] > 1:
                prefix_of.append(prefixes.setdefault(key, len(prefixes)))
            else:
                prefix_of.append(None)
        ends = [int(positions.max()) + 1 for _, positions in sequences]
        if prefixes:
            # never more rows, nor longer attention, than the padded batch without sharing (the memory model's bound)
            longest = max(ends)
            length = max(len(key) for key in prefixes)
            suffix = max(end - (cut if p is not None else 0) for cut, end, p in zip(cuts, ends, prefix_of))
            if len(prefixes) * length + len(sequences) * suffix > len(sequences) * longest or length + suffix > longest:
                prefix_of, prefixes = [None] * len(sequences), {}
        # a line without a shared prefix starts its suffix row at token 0
        starts = [cut if p is not None else 0 for cut, p in zip(cuts, prefix_of)]
        self.prefix_rows = len(prefixes)
        self.prefix_len = max((len(key) for key in prefixes), default=0)
        self.rows = len(sequences)
        self.suffix_len = max(end - start for start, end in zip(starts, ends))
        P, L, N, S = self.prefix_rows, self.prefix_len, self.rows, self.suffix_len
        tokens = torch.zeros(P * L + N * S, dtype=torch.long)
        places = torch.zeros(P * L + N * S, dtype=torch.long)
        prefix_lengths = torch.zeros(N, dtype=torch.long)
        for key, row in prefixes.items():
            tokens[row * L : row * L + len(key)] = torch.tensor(key, dtype=torch.long)
            places[row * L : (row + 1) * L] = torch.arange(L)
        gather = []
        for n, ((line_tokens, positions), start, end, p) in enumerate(zip(sequences, starts, ends, prefix_of)):
            base = P * L + n * S
            tokens[base : base + end - start] = line_tokens[start:end].cpu()
            places[base : base + S] = torch.arange(start, start + S)
            if p is not None:
                prefix_lengths[n] = start
            gather.append(positions.cpu() - start + base)
        self.tokens = tokens.to(device)
        #: each flat row's position in its own sequence (RoPE)
        self.positions = places.to(device)
        #: each suffix row's prefix row (0 where it has none: its prefix length is 0, so every prefix key is masked)
        self.prefix_index = torch.tensor([p if p is not None else 0 for p in prefix_of], dtype=torch.long, device=device)
        #: flat rows of the wanted hidden states, sequence after sequence, and how many per sequence
        self.gather = torch.cat(gather).to(device)
        self.counts = [len(positions) for _, positions in sequences]
        neg = float("-inf")
        causal = lambda n: torch.full((n, n), neg, device=device).triu(1)  # noqa: E731
        #: additive attention masks: the prefix rows' causal one [L, L]; the suffix rows' [N, 1, S, L + S] (their prefix, then causal)
        self.prefix_mask = causal(L) if L else None
        visible = torch.arange(L, device=device).unsqueeze(0) < prefix_lengths.to(device).unsqueeze(1)  # [N, L]
        prefix_part = torch.zeros((N, L), device=device).masked_fill(~visible, neg)
        self.suffix_mask = torch.cat([prefix_part.unsqueeze(1).expand(N, S, L), causal(S).unsqueeze(0).expand(N, S, S)], dim=2).unsqueeze(1)

    def split(self, x):
        """A flat [rows, heads, dim] tensor as its prefix part [P, L, heads, dim] (None without prefixes) and suffix part [N, S, heads, dim]."""
        cut = self.prefix_rows * self.prefix_len
        prefix = x[:cut].view(self.prefix_rows, self.prefix_len, *x.shape[1:]) if cut else None
        return prefix, x[cut:].view(self.rows, self.suffix_len, *x.shape[1:])

    def suffix_keys(self, prefix, suffix):
        """The keys (or values) a suffix row attends to: its prefix row's, then its own ([N, L + S, heads, dim])."""
        if prefix is None:
            return suffix
        return torch.cat([prefix[self.prefix_index], suffix], dim=1)
