# expect-before: runs
# autodetach-test: unsafe
# The acting step goes through `policy.select_action(obs, h)` of a class in
# agents.py: it runs the recurrent actor on `h` with gradients on and hands
# back the action as a numpy array and the new state, which the loop feeds
# back under another name (`h = next_h`) until the episode ends. The buffer
# keeps the state detached and the training step reads only the buffer, so
# nothing ever backwards the chain of acting steps: every step's graph stays
# alive for the whole episode. That `policy` is an object of `Policy` (the
# one project class that defines `select_action`) is inferred from agents.py,
# so the fix (the acting step under no_grad) is unsafe.
import os

import numpy as np
import torch

from agents import Buffer, Policy

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
rng = np.random.RandomState(0)


def make_policy():
    return Policy()


policy = make_policy()
buffer = Buffer()
obs = rng.randn(3)
h = policy.initial()
loss = 0.0
for t in range(ITERS * 5):
    with torch.no_grad():
        a, next_h = policy.select_action(obs, h)
    obs = np.clip(obs + 0.1 * a.sum() + rng.randn(3) * 0.1, -2, 2)
    buffer.add(obs, h)
    h = next_h
    if t >= 4:
        loss = policy.train(buffer)
    if t % 5 == 4 and t < ITERS * 5 - 1:
        h = policy.initial()
print(f"loss {loss:.6f}")
