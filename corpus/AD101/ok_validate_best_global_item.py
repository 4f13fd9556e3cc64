# expect-before: runs
# `validate(net, batches)` runs with gradients on and keeps the best mean
# score in the module-level `best_val`, but as a number (`.item()`): nothing
# that carries a graph outlives the call. No AD101 finding (the list of
# per-batch losses the pass collects with their graphs is AD102's).
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
        best_val = mean_score.item()
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
    score = validate(net, val_batches)
    print(f"epoch {epoch} val {score:.6f} best {best_val:.6f}")
