# expect-before: runs
# Meta-learning over minibatches of tasks, written as a Trainer class: each
# task's loss comes from a helper whose own running total starts at 0 on every
# call, the meta total adds the tasks up, and every `per_batch` tasks it is
# backwarded with retain_graph=True, stepped and reset to 0 in the same block.
# The next backward walks only the tasks added after the reset, so the retain
# keeps each minibatch's adaptation graph alive for nothing.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def task_loss(net, x, y, steps):
    total = 0
    for _ in range(steps):
        total = total + nn.functional.mse_loss(net(x), y)
    return total / steps


class MetaTrainer:
    def __init__(self, net, per_batch):
        self.net = net
        self.per_batch = per_batch
        self.opt = torch.optim.Adam(net.parameters(), lr=1e-2)

    def fit(self, tasks):
        meta = 0
        for i, (x, y) in enumerate(tasks):
            meta = meta + task_loss(self.net, x, y, 2)
            if (i + 1) % self.per_batch == 0:
                meta = meta / self.per_batch
                self.opt.zero_grad()
                meta.backward(retain_graph=True)
                self.opt.step()
                print(f"{i} meta {meta.item():.6f}")
                meta = 0


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
    tasks = [(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(2 * ITERS)]
    MetaTrainer(net, 2).fit(tasks)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
