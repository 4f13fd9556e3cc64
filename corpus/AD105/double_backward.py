# expect-before: error Trying to backward through the graph a second time
# A debugging pass backpropagates once to log the gradient norm, clears the
# gradients and backpropagates again for the real step.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 2))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for it in range(ITERS):
    x = torch.randn(24, 10)
    y = (x[:, 0] > 0).long()
    loss = criterion(model(x), y)
    loss.backward()
    grad_norm = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters()))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    print(f"{it} loss {loss.item():.6f} grad_norm {grad_norm.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
