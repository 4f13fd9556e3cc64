# expect-before: runs
# The same weighting method written right (nash-mtl's CAGrad): the test drops
# the retain on the last task (`i < self.n_tasks - 1`), and `enumerate` with
# `retain_graph=i < len(losses) - 1` does the same; the last backward frees
# the shared graph. Nothing to report.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class GradAverage:
    def __init__(self, n_tasks):
        self.n_tasks = n_tasks

    def get_weighted_loss(self, losses, shared):
        grads = []
        for i in range(self.n_tasks):
            if i < (self.n_tasks - 1):
                losses[i].backward(retain_graph=True)
            else:
                losses[i].backward()
            grads.append(torch.cat([p.grad.flatten() for p in shared]))
            for p in shared:
                p.grad = None
        return torch.stack(grads).mean(0)


def task_grads(losses, shared):
    grads = []
    for i, loss in enumerate(losses):
        grads.append(torch.autograd.grad(loss, shared, retain_graph=i < len(losses) - 1))
    return grads


def train(trunk, heads, method, optimizer, steps):
    shared = list(trunk.parameters())
    for step in range(steps):
        x = torch.randn(8, 10)
        h = trunk(x)
        losses = [((head(h) - x[:, :1] * (k + 1)) ** 2).mean() for k, head in enumerate(heads)]
        optimizer.zero_grad()
        if step % 2:
            g = method.get_weighted_loss(losses, shared)
        else:
            g = torch.cat([torch.cat([t.flatten() for t in parts]) for parts in task_grads(losses, shared)])
            g = g.view(len(losses), -1).mean(0)
        offset = 0
        for p in shared:
            p.grad = g[offset:offset + p.numel()].view_as(p).clone()
            offset += p.numel()
        optimizer.step()
        print(step, " ".join(f"{loss.item():.6f}" for loss in losses))


if __name__ == "__main__":
    torch.manual_seed(0)
    trunk = nn.Sequential(nn.Linear(10, 16), nn.Tanh())
    heads = nn.ModuleList([nn.Linear(16, 1) for _ in range(3)])
    opt = torch.optim.SGD([*trunk.parameters(), *heads.parameters()], lr=0.05)
    train(trunk, heads, GradAverage(3), opt, ITERS)
    print(f"checksum {sum(p.sum().item() for p in [*trunk.parameters(), *heads.parameters()]):.6f}")
