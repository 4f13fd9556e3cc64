# expect-before: runs
# The trainer owns a meter and hands it to its step method, which records the
# loss with `meter.update(loss, n)`; this meter's `update` turns what it is
# given into a Python float first, so its sum holds numbers and no graph.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class RunningMean:
    def __init__(self):
        self.total = 0.0
        self.n = 0

    def update(self, val, n=1):
        self.total += float(val) * n
        self.n += n

    def average(self):
        return self.total / max(self.n, 1)


class Learner:
    def __init__(self, model, lr=0.1):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)

    def train_step(self, x, y, meter):
        self.optimizer.zero_grad()
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        meter.update(loss, x.size(0))

    def epoch(self, loader):
        meter = RunningMean()
        for x, y in loader:
            self.train_step(x, y, meter)
        return meter.average()


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    data = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(ITERS)]
    trainer = Learner(net)
    for epoch in range(2):
        print(f"epoch {epoch} mean {trainer.epoch(data):.6f}")
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
