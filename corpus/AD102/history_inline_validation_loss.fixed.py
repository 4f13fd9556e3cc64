# expect-before: grows
# After each step the loss on a held-out batch is logged by calling the
# network and the criterion inline in the append, with gradients on: the
# list keeps every step's validation graph (and the activations it saved).
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

net = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
criterion = nn.MSELoss()
opt = torch.optim.SGD(net.parameters(), lr=0.05)
x_val = torch.randn(128, 8)
y_val = x_val[:, :1] * 0.5
val_history = []
for step in range(ITERS):
    x = torch.randn(64, 8)
    y = x[:, :1] * 0.5
    loss = criterion(net(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    val_history.append(criterion(net(x_val), y_val).detach())
    print(f"{step} loss {loss.item():.6f} val {float(val_history[-1]):.6f}")

print(f"best val {min(float(v) for v in val_history):.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
