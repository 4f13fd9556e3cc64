# expect-before: runs
# meter_update, written correctly: the meter's `update` turns a tensor into a
# Python number before adding it, so the sum keeps no graph.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class AverageMeter:
    def __init__(self):
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        if isinstance(val, torch.Tensor):
            val = val.detach().item()
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def train_epoch(net, loader, optimizer):
    crit = nn.MSELoss()
    losses = AverageMeter()
    for x, y in loader:
        optimizer.zero_grad()
        loss = crit(net(x), y)
        loss.backward()
        optimizer.step()
        losses.update(loss, x.size(0))
    return losses


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    for epoch in range(2):
        meter = train_epoch(model, data, opt)
        print(f"epoch {epoch} avg {float(meter.avg):.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
