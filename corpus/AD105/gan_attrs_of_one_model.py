# expect-before: error Trying to backward through the graph a second time
# One optimizer over model.parameters(), where the model holds G and D as
# attributes and the loop calls model.G(...) and model.D(...) directly. Both
# losses are backwarded before the one step, so G learns from the D loss too:
# the fix is retain_graph=True on the D backward (a detach would be wrong).
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class GAN(nn.Module):
    def __init__(self):
        super().__init__()
        self.G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
        self.D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


model = GAN()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for it in range(ITERS):
    real = torch.randn(16, 8)
    optimizer.zero_grad()
    fake = model.G(torch.randn(16, 4))
    d_loss = F.softplus(-model.D(real)).mean() + F.softplus(model.D(fake)).mean()
    d_loss.backward()
    g_loss = F.softplus(-model.D(fake)).mean()
    g_loss.backward()
    optimizer.step()
    print(f"{it} d {d_loss.item():.6f} g {g_loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
