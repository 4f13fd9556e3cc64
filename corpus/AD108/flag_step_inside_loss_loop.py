# expect-before: error modified by an inplace operation
# A trainer's update method receives the losses of one forward pass (a
# manager and a worker head on a shared trunk) and one optimizer per loss.
# It zips them and steps inside the loop: the first loss is backwarded with
# retain_graph because the second goes through the same trunk, but the
# first optimizer's step changes the trunk's weights in place before that
# second backward. Reported without a fix: every loss must be backwarded
# before the first step (move the steps into a second loop).
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
        for i, (opt, loss) in enumerate(zip(opts, losses)):
            opt.zero_grad()
            loss.backward(retain_graph=i < len(opts) - 1)
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
