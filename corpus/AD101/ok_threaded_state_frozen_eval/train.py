# expect-before: runs
# An evaluation script: the recurrent network is loaded and every parameter
# frozen (`requires_grad_(False)`), then a helper threads the LSTM state
# through `net.step(obs, state)` step after step. With no parameter that
# requires grad the state carries no graph. Nothing to report.
import os

import torch

from nets import RecurrentQ

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def play(net, steps):
    state, total = None, 0.0
    obs = torch.randn(4)
    for t in range(steps):
        action, state = net.step(obs, state)
        total += action
        obs = torch.randn(4)
    return total


net = RecurrentQ()
for p in net.parameters():
    p.requires_grad_(False)
for episode in range(ITERS):
    print(f"{episode} score {play(net, ITERS + 3) / 7:.6f}")
