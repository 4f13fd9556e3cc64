# expect-before: runs
# The shape of flag_step_inside_loss_loop written as its fix: the update
# method backwards every loss of the shared forward first (retaining the
# graph for all but the last), then steps each optimizer in a second loop, so
# no backward walks weights a step already changed.
import os

import torch
import torch.nn.functional as F
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 8))
        self.manager, self.worker = nn.Linear(8, 1), nn.Linear(8, 1)

    def forward(self, x, y):
        h = self.trunk(x)
        return F.mse_loss(self.manager(h), y), F.mse_loss(self.worker(h), -y)


class Trainer:
    def __init__(self, model):
        self.model = model
        self.manager_opt = torch.optim.SGD(list(model.trunk.parameters()) + list(model.manager.parameters()),
                                           lr=0.1)
        self.worker_opt = torch.optim.SGD(model.worker.parameters(), lr=0.1)

    def _optimize_step(self, losses, opts):
        for opt in opts:
            opt.zero_grad()
        for i, loss in enumerate(losses):
            loss.backward(retain_graph=i < len(losses) - 1)
        for opt in opts:
            opt.step()
        return tuple(loss.item() for loss in losses)

    def train_epoch(self, batches):
        for i, (x, y) in enumerate(batches):
            losses = self.model(x, y)
            m, w = self._optimize_step(losses, (self.manager_opt, self.worker_opt))
            print(f"{i} manager {m:.6f} worker {w:.6f}")


model = TwoHeads()
Trainer(model).train_epoch([(torch.randn(8, 6), torch.randn(8, 1)) for _ in range(ITERS)])
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
