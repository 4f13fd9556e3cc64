# expect-before: runs
# A chain with one optimizer per model whose two losses are summed into a
# single backward: nothing is freed before it is needed.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

encoder = nn.Sequential(nn.Linear(6, 10), nn.ReLU())
decoder = nn.Sequential(nn.Linear(10, 10), nn.ReLU(), nn.Linear(10, 1))
opt_enc = torch.optim.SGD(encoder.parameters(), lr=0.1)
opt_dec = torch.optim.SGD(decoder.parameters(), lr=0.1)

for it in range(ITERS):
    x = torch.randn(20, 6)
    y = x[:, :1] - x[:, 1:2]
    a = encoder(x)
    b = decoder(a)
    loss1 = 0.1 * a.pow(2).mean()
    loss2 = F.mse_loss(b, y)
    opt_enc.zero_grad()
    opt_dec.zero_grad()
    (loss1 + loss2).backward()
    opt_enc.step()
    opt_dec.step()
    print(f"{it} loss1 {loss1.item():.6f} loss2 {loss2.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in encoder.parameters()):.6f}")
