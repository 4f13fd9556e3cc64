# expect-before: runs
# autodetach-test: unsafe
# A full-batch run: `train(model, optimizer, ...)` backwards, steps and returns
# the loss tensor itself with the prediction; the epoch loop keeps the curves
# with a generic `for hist, value in zip([...lists], [...values]): hist.append(value)`,
# so `losses` keeps every epoch's loss with its graph for the whole run, only for
# plotting. Unrolled, the store is `losses.append(loss)`: the fix detaches the
# loss where the literal lists it, which only `losses` receives. The roles of
# `model` and `optimizer` (arguments) are inferred: the fix is offered as unsafe.
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
    return loss, pred


def run(model, optimizer, x, y, epochs):
    losses, accs = [], []
    for epoch in range(epochs):
        loss, pred = train(model, optimizer, x, y)
        acc = (pred.argmax(1) == y).float().mean().item()
        for hist, value in zip([losses, accs], [loss, acc]):
            hist.append(value)
    return losses, accs


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = torch.randn(32, 6), torch.randint(0, 3, (32,))
    losses, accs = run(model, opt, x, y, ITERS)
    print(" ".join(f"{float(v):.6f}" for v in losses), " ".join(f"{a:.4f}" for a in accs))
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
