# expect-before: runs
# The same line-search style loop, written as the fix suggests: each
# iteration backwards the loss it just computed and keeps only its value in
# the preallocated list, so no graph outlives its iteration.
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
loss = objective()
losses[0] = loss.item()
it = 1
while it <= ITERS:
    opt.zero_grad()
    loss.backward()
    opt.step()
    loss = objective()
    losses[it] = loss.item()
    print(f"{it} loss {losses[it]:.6f}")
    it += 1
