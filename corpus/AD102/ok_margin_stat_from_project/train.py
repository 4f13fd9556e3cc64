# expect-before: runs
# The free function again, the margin taken from `scores.detach()`: the
# logged numbers carry no graph, so `margins` keeps none.
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
        seen = scores.detach()
        margins.append((seen.gather(1, y[:, None]) - seen.mean(1, keepdim=True)).mean())
    print(f"mean margin {float(sum(margins)) / len(margins):.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    data = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(ITERS)]
    fit(net, data, opt, multi_hinge)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
