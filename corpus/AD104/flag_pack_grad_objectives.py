# expect-before: runs
# Gradient surgery in the PCGrad shape: a wrapper around the optimizer takes
# the list of task losses (built by a comprehension over `zip(preds, ys)`),
# backwards each one in `_pack_grad` to copy out its gradient, and writes the
# projected sum back. Every objective but the last needs retain_graph=True
# (they share the trunk's graph), but the loop retains on the last one too and
# nothing backwards the graph after it, so it stays alive through the step.
# The loop has no index to test (`for obj in objectives`) and the objectives
# are the caller's: reported without a fix (retain only while
# `i < len(objectives) - 1`, with `enumerate`).
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class PCGrad:
    def __init__(self, optimizer):
        self._optim = optimizer

    def zero_grad(self):
        self._optim.zero_grad(set_to_none=True)

    def step(self):
        self._optim.step()

    def pc_backward(self, objectives):
        grads = self._pack_grad(objectives)
        merged = torch.stack(grads).mean(0)
        offset = 0
        for group in self._optim.param_groups:
            for p in group["params"]:
                p.grad = merged[offset:offset + p.numel()].view_as(p).clone()
                offset += p.numel()

    def _pack_grad(self, objectives):
        grads = []
        for obj in objectives:
            self._optim.zero_grad(set_to_none=True)
            obj.backward(retain_graph=True)
            grads.append(torch.cat([(p.grad if p.grad is not None else torch.zeros_like(p)).flatten()
                                    for g in self._optim.param_groups for p in g["params"]]))
        return grads


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(10, 16), nn.Tanh())
        self.heads = nn.ModuleList([nn.Linear(16, 1) for _ in range(3)])

    def forward(self, x):
        h = self.trunk(x)
        return [head(h) for head in self.heads]


def train(model, optimizer, steps):
    crit = nn.MSELoss()
    for step in range(steps):
        x = torch.randn(8, 10)
        ys = [x[:, :1] * k for k in (1.0, -2.0, 0.5)]
        preds = model(x)
        losses = [crit(p, y) for p, y in zip(preds, ys)]
        optimizer.zero_grad()
        optimizer.pc_backward(losses)
        optimizer.step()
        print(step, " ".join(f"{loss.item():.6f}" for loss in losses))


if __name__ == "__main__":
    torch.manual_seed(0)
    net = Net()
    train(net, PCGrad(torch.optim.SGD(net.parameters(), lr=0.05)), ITERS)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
