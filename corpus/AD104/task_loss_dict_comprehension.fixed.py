# expect-before: runs
# autodetach-test: unsafe
# A multi-task trainer keeps its task losses in a dict built by a comprehension
# over `zip(self.tasks, preds, targets)`, then backwards each value in turn to
# read the shared trunk's gradient per task. Every task but the last needs
# retain_graph=True (the next task's backward walks the trunk's graph again);
# the last retains too and nothing backwards the graph after the loop. The fix
# retains only while `i < len(losses) - 1`; `losses` having a len() and the
# roles of `self.model` and `self.opt` are inferred, so it is unsafe.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Net(nn.Module):
    def __init__(self, n_tasks):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(10, 16), nn.Tanh())
        self.heads = nn.ModuleList([nn.Linear(16, 1) for _ in range(n_tasks)])

    def forward(self, x):
        h = self.trunk(x)
        return [head(h) for head in self.heads]


class Trainer:
    def __init__(self, model, tasks):
        self.model = model
        self.tasks = tasks
        self.opt = torch.optim.SGD(model.parameters(), lr=0.05)
        self.crit = nn.MSELoss()

    def step(self, x, targets):
        preds = self.model(x)
        losses = {t: self.crit(p, y) for t, p, y in zip(self.tasks, preds, targets)}
        norms = []
        self.opt.zero_grad()
        for i, loss in enumerate(losses.values()):
            loss.backward(retain_graph=i < len(losses) - 1)
            norms.append(sum(p.grad.norm() for p in self.model.trunk.parameters()).item())
        self.opt.step()
        return [loss.item() for loss in losses.values()], norms


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(Net(3), ["depth", "normal", "seg"])
    for it in range(ITERS):
        x = torch.randn(8, 10)
        values, norms = trainer.step(x, [x[:, :1] * k for k in (1.0, -2.0, 0.5)])
        print(it, " ".join(f"{v:.6f}" for v in values + norms))
    print(f"checksum {sum(p.sum().item() for p in trainer.model.parameters()):.6f}")
