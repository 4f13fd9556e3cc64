# expect-before: runs
# The same helper shape, but one store feeds two backwards: `fit` computes
# both tasks' losses from one forward of the shared trunk, keeps them in
# `self._losses` and calls `_backward_task` once per task. The first task's
# backward must retain the trunk's graph for the second one, which reads it
# from the same `self._losses`. The retain is needed (the helper always
# retains; the last call keeps the graph until the next store, which is
# what a caller-side `retain` argument would avoid).
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class MultiTask:
    def __init__(self, trunk, heads):
        self.trunk = trunk
        self.heads = heads
        params = [*trunk.parameters(), *[p for h in heads.values() for p in h.parameters()]]
        self.optimizer = torch.optim.SGD(params, lr=0.05)
        self._losses = {}

    def calculate_losses(self, x, y):
        h = self.trunk(x)
        return {name: nn.functional.mse_loss(head(h), y[name]) for name, head in self.heads.items()}

    def _backward_task(self, task):
        self._losses[task].backward(retain_graph=True)

    def fit(self, batches):
        for step, (x, y) in enumerate(batches):
            self._losses = self.calculate_losses(x, y)
            self.optimizer.zero_grad()
            self._backward_task("depth")
            self._backward_task("normal")
            self.optimizer.step()
            print(step, " ".join(f"{k} {v.item():.6f}" for k, v in self._losses.items()))


if __name__ == "__main__":
    torch.manual_seed(0)
    trunk = nn.Sequential(nn.Linear(5, 8), nn.ReLU())
    heads = {"depth": nn.Linear(8, 1), "normal": nn.Linear(8, 3)}
    model = MultiTask(trunk, heads)
    model.fit([(torch.randn(6, 5), {"depth": torch.randn(6, 1), "normal": torch.randn(6, 3)})
               for _ in range(ITERS)])
    print(f"checksum {sum(p.sum().item() for p in trunk.parameters()):.6f}")
