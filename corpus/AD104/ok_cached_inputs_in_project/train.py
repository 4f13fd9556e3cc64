# expect-before: runs
# The same rounding loop, but calib.py's recorder hands back the cached inputs
# with their graph (no `no_grad`, no `.detach()`): every iteration's backward
# walks the graph built before the loop again, so retain_graph=True is needed.
import os

import torch
from torch import nn

from calib import cache_layer_data

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class RoundedLinear(nn.Module):
    """A linear layer whose weight is nudged by a learned soft rounding."""

    def __init__(self, linear):
        super().__init__()
        self.linear = linear
        self.alpha = nn.Parameter(torch.zeros_like(linear.weight))

    def soft(self):
        return torch.sigmoid(self.alpha)

    def forward(self, x):
        return nn.functional.linear(x, self.linear.weight.detach() + 0.01 * self.soft(), self.linear.bias.detach())


class RoundingLoss:
    def __init__(self, layer, weight=0.01):
        self.layer = layer
        self.weight = weight
        self.count = 0

    def __call__(self, pred, target):
        self.count += 1
        rec = (pred - target).pow(2).mean()
        soft = self.layer.soft()
        return rec + self.weight * (1 - (2 * soft - 1).abs().pow(2)).sum()


def reconstruct(model, layer, data, iters, batch_size=8):
    inputs, targets = cache_layer_data(model, layer, data, batch_size)
    optimizer = torch.optim.Adam([layer.alpha], lr=1e-2)
    loss_func = RoundingLoss(layer)
    for i in range(iters):
        idx = torch.randperm(inputs.size(0))[:batch_size]
        optimizer.zero_grad()
        out = layer(inputs[idx])
        err = loss_func(out, targets[idx])
        err.backward(retain_graph=True)
        optimizer.step()
        print(i, round(err.item(), 6))


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 4))
net[2] = RoundedLinear(net[2])
reconstruct(net, net[2], torch.randn(32, 6), ITERS)
