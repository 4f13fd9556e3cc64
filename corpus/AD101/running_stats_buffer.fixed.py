# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A layer in the trained network centres its input by a running mean kept in a
# registered buffer, updated in place from the batch mean of its input (which
# carries the graph of the layer before it). The buffer gains this step's
# history, and the next step's loss reads it: its backward walks into the
# previous step's graph, already freed.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class RunningCenter(nn.Module):
    def __init__(self, features, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.scale = nn.Parameter(torch.ones(features))
        self.register_buffer("running_mean", torch.zeros(features))

    def forward(self, x):
        if self.training:
            mean = x.mean(0)
            self.running_mean.mul_(1 - self.momentum).add_((mean * self.momentum).detach())
        return self.scale * (x - self.running_mean)


def train(model, optimizer, batches):
    model.train()
    for it, (x, y) in enumerate(batches):
        loss = F.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"{it} loss {loss.item():.6f}")


model = nn.Sequential(nn.Linear(8, 16), RunningCenter(16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
data = [(torch.randn(32, 8), torch.randn(32, 1)) for _ in range(ITERS)]
train(model, optimizer, data)
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
