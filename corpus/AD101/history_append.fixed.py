# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A temporal-consistency penalty keeps each step's embedding in a list; the
# next step's loss reads the stored one, whose graph the last backward freed.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

encoder = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 4))
head = nn.Linear(4, 1)
opt = torch.optim.SGD(list(encoder.parameters()) + list(head.parameters()), lr=0.05)

history = []
for it in range(ITERS):
    x = torch.randn(8, 6)
    y = torch.randn(8, 1)
    z = encoder(x)
    loss = (head(z) - y).pow(2).mean()
    if history:
        loss = loss + 0.1 * (z - history[-1]).pow(2).mean()
    history.append(z.detach())
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{it} loss {loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in encoder.parameters()):.6f}")
