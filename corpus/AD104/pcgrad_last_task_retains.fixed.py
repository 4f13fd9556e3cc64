# expect-before: runs
# autodetach-test: unsafe
# Per-task gradients for gradient surgery (PCGrad, CAGrad): each task loss is
# backwarded in turn and its shared-trunk gradient copied out. Every task but
# the last needs retain_graph=True, because the next task's backward walks the
# shared trunk's graph again; but the test meant to drop it on the last task
# is always true (`i < n_tasks` inside `range(n_tasks)`: the else arm is dead),
# so the last backward retains too and the whole graph stays alive until the
# next step replaces `losses`. `model` and `optimizer` are arguments whose
# roles are inferred from their use, so the fix is unsafe.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class MultiTaskNet(nn.Module):
    def __init__(self, n_tasks):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(10, 16), nn.Tanh())
        self.heads = nn.ModuleList([nn.Linear(16, 1) for _ in range(n_tasks)])

    def forward(self, x):
        h = self.trunk(x)
        return [head(h) for head in self.heads]


def project(grads):
    merged = torch.stack(grads).mean(0)
    return merged


def train(model, optimizer, n_tasks, steps):
    shared = list(model.trunk.parameters())
    for step in range(steps):
        x = torch.randn(8, 10)
        ys = [x[:, :1] * k for k in (1.0, -2.0, 0.5)]
        optimizer.zero_grad()
        preds = model(x)
        losses = [((preds[k] - ys[k]) ** 2).mean() for k in range(n_tasks)]
        grads = []
        for i in range(n_tasks):
            if i < n_tasks - 1:
                losses[i].backward(retain_graph=True)
            else:
                losses[i].backward()
            grads.append(torch.cat([p.grad.flatten() for p in shared]))
            for p in shared:
                p.grad = None
        merged = project(grads)
        offset = 0
        for p in shared:
            p.grad = merged[offset:offset + p.numel()].view_as(p).clone()
            offset += p.numel()
        optimizer.step()
        print(step, " ".join(f"{loss.item():.6f}" for loss in losses))


if __name__ == "__main__":
    torch.manual_seed(0)
    net = MultiTaskNet(3)
    train(net, torch.optim.SGD(net.parameters(), lr=0.05), 3, ITERS)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
