# expect-before: runs
# `report.detach()` as a statement is not a no-op here: `Report` (report.py)
# is a project class whose detach() replaces its items by detached tensors in
# place, so the kept reports hold no graph (mmf's evaluation loop).
import os

import torch

from report import Report

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = torch.nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
reports = []
for it in range(ITERS):
    batch = torch.randn(4, 3)
    output = model(batch)
    loss = output.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    report = Report(batch, output)
    report.detach()
    reports.append(report)
    print(f"{loss.item():.6f} {report['output'].requires_grad}")
print(f"{sum(p.sum().item() for p in model.parameters()):.6f}")
