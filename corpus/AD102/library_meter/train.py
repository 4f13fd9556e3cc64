# expect-before: runs
# autodetach-test: unsafe
# A trainer (model and optimizer on self) feeds the loss tensor to an
# AverageMeter from an installed library before backwarding it; the meter lives
# for the epoch and is read for the log. The analysis cannot read the library:
# it is inferred to keep what `update` is given, as meters do, so the
# `.detach()` fix is offered as unsafe.
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "site"))
from meterlib import AverageMeter  # noqa: E402

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Retrain:
    def __init__(self, model, data):
        self.model = model
        self.data = data
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    def train_one_epoch(self, smoothing=0.0):
        losses = AverageMeter("loss")
        for x, y in self.data:
            out = self.model(x)
            if smoothing > 0:
                loss = F.cross_entropy(out, y, label_smoothing=smoothing)
            else:
                loss = F.cross_entropy(out, y)
            losses.update(loss, x.size(0))
            self.model.zero_grad()
            loss.backward()
            self.optimizer.step()
        print(f"loss {float(losses.avg):.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
    data = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(ITERS)]
    Retrain(model, data).train_one_epoch()
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
