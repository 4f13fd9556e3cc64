# expect-before: runs
# autodetach-test: unsafe
# 2018-style training with torch.norm: a max-norm clip on the rows of a
# weight, an L1 penalty, and a Frobenius norm over two dimensions. The
# linalg.vector_norm forms print the same numbers, gradients included.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
model = nn.Linear(6, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 6), torch.randn(16, 3)
for it in range(ITERS):
    out = model(x)
    penalty = 0.01 * torch.linalg.vector_norm(model.weight, ord=1) + 0.001 * torch.linalg.vector_norm(out, dim=(0, 1))
    loss = (out - y).pow(2).mean() + penalty
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        rows = torch.linalg.vector_norm(model.weight, dim=1, keepdim=True)
        model.weight.div_(rows.clamp(min=1.0))
    print("%.6f %.6f" % (loss.item(), torch.linalg.vector_norm(model.weight, ord=float("inf")).item()))
print("%.6f" % sum(p.sum().item() for p in model.parameters()))
