# expect-before: runs
# A multi-task step sums the scaled task losses with `if i > 0: loss = loss +
# ...` and `else: loss = ...`: the first task (i == 0) starts the sum again in
# every step, so the sum never reaches the last step's graph (MGDA-UB's scaled
# back-propagation, a dict of task heads on a shared encoder).
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

tasks = ["seg", "depth"]
model = nn.ModuleDict({"rep": nn.Linear(4, 8), "seg": nn.Linear(8, 1), "depth": nn.Linear(8, 1)})
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scale = {"seg": 0.5, "depth": 0.5}

for it in range(ITERS):
    images = torch.randn(3, 4)
    labels = {t: torch.randn(3, 1) for t in tasks}
    optimizer.zero_grad()
    rep = model["rep"](images)
    for i, t in enumerate(tasks):
        loss_t = (model[t](rep) - labels[t]).pow(2).mean()
        if i > 0:
            loss = loss + scale[t] * loss_t
        else:
            loss = scale[t] * loss_t
    loss.backward()
    optimizer.step()
    print(f"{loss.item():.6f}")
print(f"{sum(p.sum().item() for p in model.parameters()):.6f}")
