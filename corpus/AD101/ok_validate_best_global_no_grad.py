# expect-before: runs
# `validate(net, batches)` keeps its best mean score in the module-level
# `best_val` as a tensor, but its only call runs under `torch.no_grad()`: the
# score carries no graph. No finding.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

best_val = float("inf")


def validate(net, batches):
    global best_val
    net.eval()
    scores = []
    for x, y in batches:
        scores.append(F.mse_loss(net(x), y))
    mean_score = torch.stack(scores).mean()
    if mean_score < best_val:
        best_val = mean_score
    net.train()
    return mean_score.item()


net = nn.Sequential(nn.Linear(5, 12), nn.Tanh(), nn.Linear(12, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.05)
train_batches = [(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(4)]
val_batches = [(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(3)]

for epoch in range(ITERS):
    for x, y in train_batches:
        opt.zero_grad()
        F.mse_loss(net(x), y).backward()
        opt.step()
    with torch.no_grad():
        score = validate(net, val_batches)
    print(f"epoch {epoch} val {score:.6f} best {float(best_val):.6f}")
