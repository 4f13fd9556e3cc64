# expect-before: runs
# The best validation error kept across epochs, where the evaluation function is
# handed the trained network but returns a meter's average of numbers read off its
# outputs through `.data`: no graph reaches `best`, so `min(err, best)` keeps
# nothing (a `.detach()` there would crash when `err` is a float). No finding.
import os

import torch
import torch.nn as nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Average:
    def __init__(self):
        self.total, self.count, self.avg = 0.0, 0, 0.0

    def update(self, value, n=1):
        self.total += value * n
        self.count += n
        self.avg = self.total / self.count


def abs_error(pred, target):
    return torch.mean(torch.abs(target - pred))


def evaluate(loader, model):
    meter = Average()
    for x, y in loader:
        out = model(x)
        meter.update(abs_error(out.data, y), y.size(0))
    return meter.avg


net = nn.Linear(4, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.05)
crit = nn.MSELoss()
data = [(torch.randn(8, 4), torch.randn(8, 2)) for _ in range(3)]
best = 1e10
for epoch in range(ITERS):
    for x, y in data:
        opt.zero_grad()
        crit(net(x), y).backward()
        opt.step()
    err = evaluate(data, net)
    best = min(err, best)
print(f"best {float(best):.6f} after {ITERS} epochs")
