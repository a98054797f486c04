"""A worker's start-up work done before it says `ready`, not in its first round.

PyTorch imports parts of itself on first use: the optimiser pulls in torch._dynamo (seconds with
torch 2.x), autograd and the fused kernels initialise on the first backward pass. A persistent
worker starts before the run's first rollout, so paying these there keeps them out of every round.
"""
import time


def warm_up(torch):
    """One tiny forward, backward and Adam step on the CPU; returns the seconds it took."""
    started = time.time()
    weight = torch.zeros(4, 4, requires_grad=True)
    optimizer = torch.optim.Adam([weight], lr=1e-3)
    loss = torch.nn.functional.log_softmax(torch.ones(2, 4) @ weight, dim=-1).sum()
    loss.backward()
    torch.nn.utils.clip_grad_norm_([weight], 1.0)
    optimizer.step()
    return time.time() - started
