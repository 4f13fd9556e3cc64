# expect-before: grows
# `total += abs(loss)` keeps every iteration's graph: the builtin `abs()` calls
# `Tensor.__abs__`, a differentiable op, so the sum hangs from each loss. The
# total is only printed.
import os

import torch

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
total = 0
for step in range(ITERS):
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    loss = ((model(x) - y) ** 2).mean() - 0.5
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += abs(loss)
print(f"total |loss| {float(total):.6f} over {ITERS} steps")
