# expect-before: runs
# autodetach-test: unsafe
# A loss tracker from the project's own meters.py: `add(losses)` sums each
# entry of the dict it is given into `self.sums`. The trainer keeps it on
# `self` and gives it a dict of the step's losses, which carry their graphs,
# so the sums chain every step's graph. What the tracker keeps is inferred
# from its method's code in another file: the fix is offered as unsafe.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from meters import LossTracker

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self, net):
        self.net = net
        self.optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
        self.tracker = LossTracker(["mse", "l1"])

    def fit(self, loader):
        for x, y in loader:
            out = self.net(x)
            mse, l1 = F.mse_loss(out, y), F.l1_loss(out, y)
            self.optimizer.zero_grad()
            (mse + 0.5 * l1).backward()
            self.optimizer.step()
            self.tracker.add({"mse": mse.detach(), "l1": l1.detach()})
        return self.tracker.means()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    means = Trainer(model).fit(data)
    print(" ".join(f"{k} {v:.6f}" for k, v in sorted(means.items())))
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
