# expect-before: runs
# The acting step goes through a helper of this file decorated with
# `torch.no_grad()`: `policy.select_action` runs the recurrent actor on `h`,
# but without gradients, so the state fed back (`h = next_h`) carries no
# graph and nothing accumulates. Nothing to report.
import os

import numpy as np
import torch

from agents import Buffer, Policy

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
rng = np.random.RandomState(0)


@torch.no_grad()
def act(policy, obs, h):
    a, h = policy.select_action(obs, h)
    return a, h


policy = Policy()
buffer = Buffer()
obs = rng.randn(3)
h = policy.initial()
loss = 0.0
for t in range(ITERS * 5):
    a, next_h = act(policy, obs, h)
    obs = np.clip(obs + 0.1 * a.sum() + rng.randn(3) * 0.1, -2, 2)
    buffer.add(obs, h)
    h = next_h
    if t >= 4:
        loss = policy.train(buffer)
    if t % 5 == 4 and t < ITERS * 5 - 1:
        h = policy.initial()
print(f"loss {loss:.6f}")
