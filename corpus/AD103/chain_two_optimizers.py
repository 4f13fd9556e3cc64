# expect-before: error Trying to backward through the graph a second time
# Two chained models, each with its own optimizer and its own loss. loss1's
# backward frees model1's graph; loss2's backward walks back into it. The
# gradients loss2 would leave in model1 are zeroed before opt1 steps again,
# so model2 can take `a.detach()`.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model1 = nn.Sequential(nn.Linear(6, 10), nn.ReLU())
model2 = nn.Sequential(nn.Linear(10, 10), nn.ReLU(), nn.Linear(10, 1))
opt1 = torch.optim.SGD(model1.parameters(), lr=0.1)
opt2 = torch.optim.SGD(model2.parameters(), lr=0.1)
aux_target = torch.zeros(1, 10)

for it in range(ITERS):
    x = torch.randn(20, 6)
    y = x[:, :1] - x[:, 1:2]
    a = model1(x)
    b = model2(a)

    opt1.zero_grad()
    loss1 = F.mse_loss(a.mean(0, keepdim=True), aux_target + 0.5)
    loss1.backward()
    opt1.step()

    opt2.zero_grad()
    loss2 = F.mse_loss(b, y)
    loss2.backward()
    opt2.step()
    print(f"{it} loss1 {loss1.item():.6f} loss2 {loss2.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in model1.parameters()):.6f} "
      f"{sum(p.sum().item() for p in model2.parameters()):.6f}")
