# expect-before: runs
# autodetach-test: unsafe
# A solver that trains a net and returns its history: every epoch ends with
# the loss on the whole training set, computed after the optimizer step and
# never backwarded, appended to `history["train_loss"]` with its graph. The
# dict is returned to the caller (not followed) and handed to a monitor
# object whose class (`Monitor` of this file, inferred from the method name)
# only reads it. A caller could not backward those losses: the step in the
# loop updates the net in place after each of them is computed. The kept
# graphs grow with the epochs; `.detach()` is unsafe because what the caller
# does is inferred, not seen.
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
