# expect-before: runs
# The weight-normalised projection recomputed in every iteration.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

weight = nn.Parameter(torch.randn(8, 3))
bias = nn.Parameter(torch.zeros(3))
opt = torch.optim.SGD([weight, bias], lr=0.1)
criterion = nn.CrossEntropyLoss()
for it in range(ITERS):
    w = weight / weight.norm()
    x = torch.randn(16, 8)
    y = x[:, :3].argmax(1)
    logits = 10.0 * (x @ w) + bias
    loss = criterion(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{it} loss {loss.item():.6f}")

print(f"checksum {weight.sum().item() + bias.sum().item():.6f}")
