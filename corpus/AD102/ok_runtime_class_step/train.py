# expect-before: runs
# The algorithm's class is chosen by name at run time (getattr on the project's
# algorithms module). Every train_step of the project returns the loss as a
# number (.item()), so the running sum keeps no graph.
import os

import torch
import torch.nn as nn

import algorithms

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def build(name, net):
    return getattr(algorithms, name)(net, lr=0.05)


def run(name, net, batches):
    algo = build(name, net)
    running_loss, seen = 0.0, 0
    for x, y in batches:
        step_loss, n = algo.train_step(x, y)
        running_loss += step_loss * n
        seen += n
    return float(running_loss) / seen


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 12), nn.ReLU(), nn.Linear(12, 1))
    data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(ITERS)]
    print(f"mean {run(os.environ.get('ALGO', 'Regression'), model, data):.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
