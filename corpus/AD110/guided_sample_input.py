# expect-before: runs
# Guided sampling in the shape of diffusion planners: a helper takes the
# sample `x`, turns on its gradient, asks a value guide for its gradient and
# says `x.detach()` as a statement, a no-op: `x` keeps requires_grad, so every
# guided step's update hangs from the last one and the sample's history grows
# through the whole chain. Assigning it back detaches `x` before it is moved.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def guided_step(guide, x, scale):
    x.requires_grad_()
    y = guide(x).sum()
    grad = torch.autograd.grad([y], [x])[0]
    x.detach()
    return x + scale * grad


guide = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
x = torch.randn(5, 3)
for step in range(ITERS):
    x = guided_step(guide, x, 0.1)
    print(f"step {step} mean {x.mean().item():.6f}")
