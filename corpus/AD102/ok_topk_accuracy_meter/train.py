# expect-before: runs
# Epoch meters of the project's metrics.py (`self.sum += val * n`) fed with
# accuracies from its helpers: `accuracy` compares the indices of `topk`,
# `hits` those of `torch.max(out, 1)`, `ranked_hits` those of `sort`. Indices
# and comparisons carry no graph, so the meters keep none even though the
# helpers are handed the network's output: nothing to report.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from metrics import AverageMeter, accuracy, hits, ranked_hits

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train_epoch(net, opt, batches):
    top1, hit, ranked = AverageMeter(), AverageMeter(), AverageMeter()
    for x, y in batches:
        out = net(x)
        loss = F.cross_entropy(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        top1.update(accuracy(out, y), x.size(0))
        hit.update(hits(out, y))
        ranked.update(ranked_hits(out, y))
    return top1.avg, hit.avg, ranked.avg


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
opt = torch.optim.SGD(net.parameters(), lr=0.05)
batches = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(ITERS)]

if __name__ == "__main__":
    for epoch in range(2):
        acc, h, r = train_epoch(net, opt, batches)
        print(f"{epoch} acc {float(acc):.3f} hits {float(h):.3f} ranked {float(r):.3f}")
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
