# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# opt_G is zeroed at the top of the iteration, so the gradients D's loss
# puts into G through `fake` are still there when `generator_step` (in
# steps.py) steps opt_G: detaching `fake` would change G's update. Keep the
# graph instead (unsafe: what the helper does is known from its summary).
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from steps import generator_step

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt_G = torch.optim.SGD(G.parameters(), lr=0.05)
opt_D = torch.optim.SGD(D.parameters(), lr=0.05)

for it in range(ITERS):
    opt_G.zero_grad()
    real = torch.randn(16, 8) + 1.0
    fake = G(torch.randn(16, 4))
    opt_D.zero_grad()
    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
    d_loss.backward(retain_graph=True)
    opt_D.step()
    g_loss = generator_step(D, fake, opt_G)
    print(f"{it} d {d_loss.item():.6f} g {g_loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in G.parameters()):.6f} "
      f"{sum(p.sum().item() for p in D.parameters()):.6f}")
