# expect-before: runs
# autodetach-test: unsafe
# A multi-task weighting method in the shape of CAGrad-style libraries: the
# trainer hands the stacked task losses to `method.backward(losses, shared)`,
# which backwards each task loss to collect the shared gradients. Each retain
# but the last is needed (the tasks share the trunk's graph); the last task's
# backward retains too, since `retain_graph=True` is passed on every
# iteration. The graph belongs to the caller, which could backward it again
# after the call (it does not here): that is inferred, so the fix is unsafe.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class WeightMethod:
    def __init__(self, n_tasks):
        self.n_tasks = n_tasks

    def get_weighted_loss(self, losses, shared):
        return losses.sum()

    def backward(self, losses, shared):
        loss = self.get_weighted_loss(losses, shared)
        loss.backward()
        return loss


class GradAverage(WeightMethod):
    def get_weighted_loss(self, losses, shared):
        grads = []
        for i in range(self.n_tasks):
            losses[i].backward(retain_graph=i < self.n_tasks - 1)
            grads.append(torch.cat([p.grad.flatten() for p in shared]))
            for p in shared:
                p.grad = None
        return torch.stack(grads).mean(0)

    def backward(self, losses, shared):
        g = self.get_weighted_loss(losses, shared)
        offset = 0
        for p in shared:
            p.grad = g[offset:offset + p.numel()].view_as(p).clone()
            offset += p.numel()
        return None


def train(trunk, heads, method, optimizer, steps):
    shared = list(trunk.parameters())
    for step in range(steps):
        x = torch.randn(8, 10)
        h = trunk(x)
        losses = torch.stack([((head(h) - x[:, :1] * (k + 1)) ** 2).mean() for k, head in enumerate(heads)])
        optimizer.zero_grad()
        method.backward(losses, shared)
        optimizer.step()
        print(step, " ".join(f"{v:.6f}" for v in losses.detach().tolist()))


if __name__ == "__main__":
    torch.manual_seed(0)
    trunk = nn.Sequential(nn.Linear(10, 16), nn.Tanh())
    heads = nn.ModuleList([nn.Linear(16, 1) for _ in range(3)])
    opt = torch.optim.SGD([*trunk.parameters(), *heads.parameters()], lr=0.05)
    train(trunk, heads, GradAverage(3), opt, ITERS)
    print(f"checksum {sum(p.sum().item() for p in [*trunk.parameters(), *heads.parameters()]):.6f}")
