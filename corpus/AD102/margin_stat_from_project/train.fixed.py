# expect-before: grows
# autodetach-test: unsafe
# A free function takes the model, the optimizer and the loss function (the
# project's criteria.py) as arguments and logs the mean score margin of each
# batch beside the loss. The margin is one number reduced from the model's
# scores, which the step's backward walks: it carries the step's graph, and
# `margins`, made before the loop and only averaged after it, keeps every
# batch's graph alive. That `model` is a module is inferred from its use (it
# is an argument), so the fix is unsafe.
import os

import torch
import torch.nn as nn

from criteria import multi_hinge

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def fit(model, batches, optimizer, criterion):
    margins = []
    for x, y in batches:
        scores = model(x)
        loss = criterion(scores, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        margins.append((scores.gather(1, y[:, None]) - scores.mean(1, keepdim=True)).mean().item())
    print(f"mean margin {float(sum(margins)) / len(margins):.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    data = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(ITERS)]
    fit(net, data, opt, multi_hinge)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
