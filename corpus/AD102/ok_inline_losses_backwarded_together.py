# expect-before: runs
# Per-task losses are appended inline (the network and the criterion called
# in the append) and backwarded together at the end of each step, then the
# list is cleared: nothing outlives its step.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

net = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
criterion = nn.MSELoss()
opt = torch.optim.SGD(net.parameters(), lr=0.05)
task_losses = []
for step in range(ITERS):
    for task in range(3):
        x = torch.randn(16, 8)
        task_losses.append(criterion(net(x), x[:, :1] * (task + 1)))
    loss = torch.stack(task_losses).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    task_losses.clear()
    print(f"{step} loss {loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
