# expect-before: runs
# The solver of history_returned_after_steps, but the monitor (the only class
# of the file with a `check` method) keeps the last loss only: it binds
# `history["train_loss"]` again each time it is handed the dict. The list does
# not grow across epochs, so nothing is reported.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Monitor:
    def __init__(self, every):
        self.every = every
        self.lines = []

    def check(self, net, history):
        self.lines.append(" ".join(f"{float(v):.6f}" for v in history["train_loss"][-2:]))
        history["train_loss"] = history["train_loss"][-1:]


def solve(net, points, epochs, monitor=None):
    def train(net, optimizer):
        for batch in points.split(8):
            batch_loss = residual(net, batch)
            optimizer.zero_grad()
            batch_loss.backward()
            optimizer.step()
        epoch_loss = residual(net, points)
        return epoch_loss, {}

    def residual(net, ts):
        u = net(ts)
        return (u - torch.sin(ts)).pow(2).mean()

    optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
    history = {}
    history["train_loss"] = []
    for epoch in range(epochs):
        train_loss, _ = train(net, optimizer)
        history["train_loss"].append(train_loss)
        if monitor and epoch % monitor.every == 0:
            monitor.check(net, history)
    return net, history


net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
points = torch.linspace(0, 3, 32).reshape(-1, 1)
monitor = Monitor(every=2)
net, history = solve(net, points, ITERS * 2, monitor)
print("losses", " ".join(f"{float(v):.6f}" for v in history["train_loss"]))
print("monitor", "|".join(monitor.lines))
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f} epochs {ITERS}")
