# expect-before: runs
# autodetach-test: unsafe
# A script's `validate(net, batches)` runs with gradients on (no
# `torch.no_grad()`; `net.eval()` turns none off), collects each batch's loss
# and averages them; when the average beats the module-level `best_val` it
# keeps it there (`global best_val`). The average hangs from every
# validation batch's graph, so the whole pass's graphs stay alive after the
# call returns, through the next epochs of training, until a better pass
# replaces them. Nothing backwards `best_val`. The fix (store it detached) is
# unsafe: that `validate` runs with gradients on is inferred from its calls.
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
    score = validate(net, val_batches)
    print(f"epoch {epoch} val {score:.6f} best {float(best_val):.6f}")
