# expect-before: runs
# Gradient accumulation over a window: the losses of four batches are
# summed with their graphs, backwarded once, and the sum starts again from
# zero. Nothing is walked twice and nothing outlives the window.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train_epoch(model, optimizer, batches, window=2):
    total_loss = 0
    for i, (x, y) in enumerate(batches):
        loss = nn.functional.mse_loss(model(x), y)
        total_loss = total_loss + loss
        if (i + 1) % window == 0:
            optimizer.zero_grad()
            total_loss.backward(retain_graph=True)
            optimizer.step()
            total_loss = 0


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.01)
data = [(torch.randn(16, 4), torch.randn(16, 1)) for _ in range(ITERS)]
train_epoch(net, opt, data)
print(round(net[0].weight.sum().item(), 6))
