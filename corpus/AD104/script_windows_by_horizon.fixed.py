# expect-before: runs
# Notebook-style script: the windows are cut once, before training, with the
# model's horizon (`model.horizon`, stored from the constructor's argument),
# which a helper binds to `h` and reads only as slice bounds and in `range()`;
# the options object names the architecture (`opts.model`, an attribute, not
# the helper's `model`).
# Nothing of the network goes into the windows; each step runs a fresh
# forward and backwards its loss with retain_graph=True, which no later
# backward needs.
import argparse
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Forecaster(nn.Module):
    def __init__(self, horizon, feats):
        super().__init__()
        self.horizon = horizon
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(horizon * feats, 16), nn.ReLU(), nn.Linear(16, feats))

    def forward(self, x):
        return self.body(x)


opts = argparse.Namespace(model="mlp", lr=1e-2)
torch.manual_seed(0)
model = Forecaster(horizon=3, feats=2)
optimizer = torch.optim.SGD(model.parameters(), lr=opts.lr)
series = torch.randn(24, 2)


def cut_windows(x, model):
    h = model.horizon
    if opts.model != "mlp":
        x = x.flip(0)
    return torch.stack([x[t - h:t] for t in range(h, len(x))]), x[h:]


windows, targets = cut_windows(series, model)
if "mlp" in opts.model:
    print(f"windows {windows.shape[0]} of {model.horizon} steps")

for step in range(ITERS):
    for start in range(0, len(windows), 7):
        loss = ((model(windows[start:start + 7]) - targets[start:start + 7]) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"step {step} loss {loss.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
