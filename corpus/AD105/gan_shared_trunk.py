# expect-before: error Trying to backward through the graph a second time
# G and D share a trunk module, so the trunk is in BOTH optimizers. The D
# backward reaches the trunk through D's own use and through G's use on the
# noise (via fake), and opt_d steps the trunk with both. G's head gradients
# are zeroed before G's step, which makes D(fake.detach()) look right, but it
# would drop the trunk's gradient through G from opt_d's step. The fix is
# retain_graph=True on the D backward. (The trunk runs on the raw noise, so
# it saves no weight and opt_d's step does not invalidate G's graph.)
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Half(nn.Module):
    def __init__(self, trunk, out):
        super().__init__()
        self.trunk = trunk
        self.head = nn.Linear(16, out)

    def forward(self, x):
        return self.head(self.trunk(x))


trunk = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
G, D = Half(trunk, 8), Half(trunk, 1)
opt_g = torch.optim.SGD(G.parameters(), lr=0.05)
opt_d = torch.optim.SGD(D.parameters(), lr=0.05)

for it in range(ITERS):
    real = torch.randn(16, 8)
    fake = G(torch.randn(16, 8))
    opt_d.zero_grad()
    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
    d_loss.backward()
    opt_d.step()
    opt_g.zero_grad()
    g_loss = F.softplus(-D(fake)).mean()
    g_loss.backward()
    opt_g.step()
    print(f"{it} d {d_loss.item():.6f} g {g_loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in G.parameters()):.6f} "
      f"{sum(p.sum().item() for p in D.parameters()):.6f}")
