# expect-before: runs
# One function trains an epoch and returns the epoch's mean loss; the loop
# over epochs keeps those means in a list for a plot. The per-step losses are
# paired with their targets through zip(), and the returned mean still holds
# every step's graph, so each epoch's whole graph stays alive in the list.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def run_epoch(net, opt, batches):
    epoch_loss = 0.0
    for x, y in batches:
        opt.zero_grad()
        step_loss = 0.0
        for row, target in zip(net(x), y):
            step_loss = step_loss + F.mse_loss(row, target)
        step_loss.backward()
        opt.step()
        epoch_loss += step_loss.detach()
    return epoch_loss / len(batches)


def fit(epochs):
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(5, 12), nn.Tanh(), nn.Linear(12, 2))
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    batches = [(torch.randn(4, 5), torch.randn(4, 2)) for _ in range(3)]
    curve = []
    for epoch in range(epochs):
        mean_loss = run_epoch(net, opt, batches)
        curve.append(mean_loss.detach())
        print(f"{epoch} mean {float(mean_loss):.6f}")
    return net, curve


if __name__ == "__main__":
    model, losses = fit(ITERS)
    print("curve", " ".join(f"{float(v):.6f}" for v in losses))
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
