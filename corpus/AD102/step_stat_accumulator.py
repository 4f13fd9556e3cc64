# expect-before: runs
# autodetach-test: unsafe
# The training step is a function called once per batch; it adds the loss in
# place into a device-side statistic that the caller's `stats` object keeps
# for the whole logging window (`stats.device_stat("loss").add_(loss)`), so
# that the host syncs only when it logs. The in-place add gives the statistic
# the loss's graph each step: every step's graph stays referenced until the
# window ends. That the statistic outlives the call is inferred from its
# coming through an argument: the fix is offered as unsafe.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class DeviceStats:
    def __init__(self, device="cpu"):
        self.device = device
        self.stats = {}

    def device_stat(self, name):
        if name not in self.stats:
            self.stats[name] = torch.zeros((), device=self.device)
        return self.stats[name]

    def flush(self):
        values = {k: v.item() for k, v in self.stats.items()}
        for v in self.stats.values():
            v.zero_()
        return values


def take_training_step(model, optimizer, batch, stats):
    x, y = batch
    loss = F.mse_loss(model(x), y)
    stats.device_stat("loss").add_(loss)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    stats = DeviceStats()
    for step in range(ITERS):
        take_training_step(model, optimizer, (torch.randn(8, 5), torch.randn(8, 1)), stats)
        if step % 2 == 1:
            print(f"{step} loss {stats.flush()['loss'] / 2:.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")


if __name__ == "__main__":
    main()
