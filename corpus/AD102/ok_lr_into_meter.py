# expect-before: runs
# The learning rate goes into a meter every step: `optimizer.param_groups[0]["lr"]`
# is a float. The optimizer is built from parameter groups a helper returns; an
# optimizer is an object that holds parameters, not a value with a graph.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Meter:
    def __init__(self):
        self.sum = {}
        self.count = {}

    def update(self, name, value, n=1):
        if name not in self.sum:
            self.sum[name] = 0.0
            self.count[name] = 0
        self.sum[name] += value * n
        self.count[name] += n


def weight_decay_groups(model, decay):
    weights = [p for p in model.parameters() if p.ndim > 1]
    others = [p for p in model.parameters() if p.ndim <= 1]
    return [{"params": weights, "weight_decay": decay}, {"params": others, "weight_decay": 0.0}]


def train_one_epoch(model, optimizer, batches):
    meter = Meter()
    for x, y in batches:
        loss = F.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        meter.update("loss", loss.item(), x.shape[0])
        meter.update("lr", optimizer.param_groups[0]["lr"], 1)
    return meter


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    groups = weight_decay_groups(model, 1e-4)
    optimizer = torch.optim.SGD(groups, lr=0.05)
    batches = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    for epoch in range(2):
        meter = train_one_epoch(model, optimizer, batches)
        print(f"{epoch} loss {meter.sum['loss'] / meter.count['loss']:.6f} lr {meter.sum['lr']:.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")


if __name__ == "__main__":
    main()
