# expect-before: runs
# A line-search style loop keeps one loss per iteration in a preallocated
# list: each iteration backwards the slot the previous one filled
# (`losses[it - 1].backward()`) and stores a fresh loss with its graph in the
# next slot. Every slot is backwarded exactly once (no error), but the list
# keeps every iteration's graph until the end. Reported without a fix: a
# detached slot could not be backwarded in the next iteration (keep numbers in
# the list and backward the loss itself).
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x, y = torch.randn(32, 3), torch.randn(32, 1)


def objective():
    return (model(x) - y).pow(2).mean()


losses = [None] * (ITERS + 1)
losses[0] = objective()
it = 1
while it <= ITERS:
    opt.zero_grad()
    losses[it - 1].backward()
    opt.step()
    losses[it] = objective()
    print(f"{it} loss {losses[it].item():.6f}")
    it += 1
