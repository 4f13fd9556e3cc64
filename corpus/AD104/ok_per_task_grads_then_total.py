# expect-before: runs
# Per-task gradient norms are measured (GradNorm-style logging) with
# retain_graph=True on every task, the last included, because the total loss
# is backwarded through the same shared graph after the loop. Every retain is
# needed.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(trunk, heads, optimizer, steps):
    shared = list(trunk.parameters())
    for step in range(steps):
        x = torch.randn(8, 10)
        h = trunk(x)
        losses = [((head(h) - x[:, :1] * (k + 1)) ** 2).mean() for k, head in enumerate(heads)]
        norms = []
        for i in range(len(losses)):
            grads = torch.autograd.grad(losses[i], shared, retain_graph=True)
            norms.append(torch.cat([g.flatten() for g in grads]).norm().item())
        optimizer.zero_grad()
        sum(losses).backward()
        optimizer.step()
        print(step, " ".join(f"{n:.6f}" for n in norms))


if __name__ == "__main__":
    torch.manual_seed(0)
    trunk = nn.Sequential(nn.Linear(10, 16), nn.Tanh())
    heads = nn.ModuleList([nn.Linear(16, 1) for _ in range(3)])
    opt = torch.optim.SGD([*trunk.parameters(), *heads.parameters()], lr=0.05)
    train(trunk, heads, opt, ITERS)
    print(f"checksum {sum(p.sum().item() for p in [*trunk.parameters(), *heads.parameters()]):.6f}")
