# expect-before: error Trying to backward through the graph a second time
# A GAN whose parts are taken from one wrapper module (`G, D = model.G, model.D`)
# and stepped by one optimizer over `model.parameters()`: G learns from D's loss
# too, so the D backward keeps the graph (retain_graph=True), never `fake.detach()`.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class GAN(nn.Module):
    def __init__(self):
        super().__init__()
        self.G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
        self.D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


torch.manual_seed(0)
model = GAN()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
G, D = model.G, model.D  # one optimizer steps both parts
for i in range(ITERS):
    real = torch.randn(16, 8)
    fake = G(torch.randn(16, 4))
    opt.zero_grad()
    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
    d_loss.backward(retain_graph=True)
    g_loss = F.softplus(-D(fake)).mean()
    g_loss.backward()
    opt.step()
    print(f"{d_loss.item():.6f} {g_loss.item():.6f}")
print(f"{sum(p.sum().item() for p in model.parameters()):.6f}")
