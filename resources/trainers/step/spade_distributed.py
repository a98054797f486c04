"""Data-parallel training rounds under PyTorch's own launcher (torchrun): NCCL on GPUs, gloo on CPUs.

Every rank holds the whole model and LoRA (the same seed gives the same fresh LoRA), reads the whole
batch and plans the same optimiser steps (spade_step.plan_steps); within each step, rank r takes
the step's samples r, r + world, r + 2 world, ... Each token keeps its weight in the step's loss
(fixed by the whole step, spade_step.token_weights), so the sum of the ranks' gradients is the
gradient one process computes: one all-reduce (a sum) per step, before the gradient clip, then
every rank takes the same AdamW step. The recomputed-vs-recorded agreement and the round's metrics
are summed (or maxed) over the ranks. Rank 0 writes the adapter and its optimiser state.

The memory per rank is one process's (spade_memory) for its share of the step's samples: the
weights, the LoRA and Adam's moments are replicated, the activations and the output layer's
working set are those of the rank's own micro-batches. (FSDP, which would shard the weights, does
not import with Debian's torch 1.13 on Python 3.11; this is DDP's arithmetic, by hand.)

Only PyTorch and the standard library are imported here.
"""
import datetime
import json
import os

#: A worker's ranks wait for the next command between rounds (a rollout can take hours): the control group's time-out.
IDLE_TIMEOUT = datetime.timedelta(days=7)


class ProcessGroup:
    """This rank's place in the round and the reductions the round needs."""

    def __init__(self, rank, world, dist, control=None):
        self.rank = rank
        self.world = world
        self._dist = dist
        #: a gloo group for the worker's commands (objects, whatever the devices' backend)
        self._control = control

    def broadcast(self, value):
        """Rank 0's value on every rank (a command line, or None for the end of input)."""
        box = [value]
        self._dist.broadcast_object_list(box, src=0, group=self._control)
        return box[0]

    @property
    def leader(self):
        """Rank 0: the one that writes the adapter and speaks for the round."""
        return self.rank == 0

    def own(self, samples):
        """This rank's samples of one optimiser step."""
        return [sample for i, sample in enumerate(samples) if i % self.world == self.rank]

    def sum(self, values):
        """Element-wise sums of a list of floats over the ranks (float64)."""
        import torch

        tensor = torch.tensor([float(v) for v in values], dtype=torch.float64)
        self._dist.all_reduce(tensor, op=self._dist.ReduceOp.SUM)
        return tensor.tolist()

    def max(self, value):
        import torch

        tensor = torch.tensor([float(value)], dtype=torch.float64)
        self._dist.all_reduce(tensor, op=self._dist.ReduceOp.MAX)
        return tensor.item()

    def sum_gradients(self, params):
        """Every rank's gradients summed, in one flat buffer (a rank without lines in the step adds zeros)."""
        import torch

        grads = [p.grad if p.grad is not None else torch.zeros_like(p) for p in params]
        flat = torch.cat([g.reshape(-1).float() for g in grads])
        self._dist.all_reduce(flat, op=self._dist.ReduceOp.SUM)
        offset = 0
        for p, g in zip(params, grads):
            n = g.numel()
            p.grad = flat[offset : offset + n].view_as(g).to(g.dtype)
            offset += n


def from_environment(device_type="cpu"):
    """The process group torchrun describes (RANK, WORLD_SIZE, MASTER_ADDR, ...), or None outside torchrun."""
    if "RANK" not in os.environ or "WORLD_SIZE" not in os.environ:
        return None
    import torch.distributed as dist

    if not dist.is_initialized():
        dist.init_process_group(backend="nccl" if device_type == "cuda" else "gloo", timeout=IDLE_TIMEOUT)
    return ProcessGroup(dist.get_rank(), dist.get_world_size(), dist, dist.new_group(backend="gloo", timeout=IDLE_TIMEOUT))


#: The commands every rank runs; the others (memory, logprobs) rank 0 answers alone.
COLLECTIVE = ("train", "shutdown")


def worker_commands(group, stdin):
    """The line protocol's commands as each rank sees them: rank 0 reads stdin and sends every line to
    the others, which take the collective ones (a train command is one round on every rank)."""
    if group.leader:
        for line in stdin:
            group.broadcast(line)
            yield line
        group.broadcast(None)
        return
    while True:
        line = group.broadcast(None)
        if line is None:
            return
        try:
            kind = json.loads(line).get("type")
        except (ValueError, AttributeError):
            continue  # rank 0 answers the malformed line
        if kind in COLLECTIVE:
            yield line


def leader_only(group, emit):
    """Rank 0 speaks the protocol; the other ranks' answers are dropped (their log lines still go to stderr)."""
    return emit if group is None or group.leader else (lambda obj: None)


def local_device(device):
    """cuda -> this rank's GPU (LOCAL_RANK); anything else as given."""
    if device in ("cuda", "auto") and "LOCAL_RANK" in os.environ:
        import torch

        if torch.cuda.is_available():
            return f"cuda:{int(os.environ['LOCAL_RANK'])}"
    return device
