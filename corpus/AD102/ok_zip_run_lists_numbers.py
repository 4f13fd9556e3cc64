# expect-before: runs
# The same run, with the training function returning `loss.item()`: the
# pairs walked by `for hist, value in ((losses, loss), (accs, acc))` are all
# numbers, so the curves keep no graph.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(model, optimizer, x, y):
    optimizer.zero_grad()
    pred = model(x)
    loss = F.cross_entropy(pred, y)
    loss.backward()
    optimizer.step()
    return loss.item(), pred.detach()


def run(model, optimizer, x, y, epochs):
    losses, accs = [], []
    for epoch in range(epochs):
        loss, pred = train(model, optimizer, x, y)
        acc = (pred.argmax(1) == y).float().mean().item()
        for hist, value in ((losses, loss), (accs, acc)):
            hist.append(value)
    return losses, accs


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = torch.randn(32, 6), torch.randint(0, 3, (32,))
    losses, accs = run(model, opt, x, y, ITERS)
    print(" ".join(f"{v:.6f}" for v in losses), " ".join(f"{a:.4f}" for a in accs))
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
