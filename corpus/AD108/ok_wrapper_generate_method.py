# expect-before: runs
# One nn.Module holds the generator parts and the discriminator; `generate()`
# runs only `mapping` and `synthesis`, and the D step takes `fake.detach()`.
# The G loss is built after `opt_d.step()` from `fake`, built before it: the
# step changed `model.disc`, which the graph of `fake` never ran, so nothing
# is stale. (Taking `model.generate()` to run every part of `model` once
# reported it, and its fix drew new noise.)
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class StyleGAN(nn.Module):
    def __init__(self):
        super().__init__()
        self.mapping = nn.Sequential(nn.Linear(4, 4), nn.LeakyReLU(0.2))
        self.synthesis = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
        self.disc = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
        self.truncation = 0.7

    def generate(self, z):
        return self.synthesis(self.truncation * self.mapping(z))


torch.manual_seed(0)
model = StyleGAN()
opt_g = torch.optim.Adam([
    {"params": model.synthesis.parameters()},
    {"params": model.mapping.parameters(), "lr": 1e-4},
], lr=1e-3)
opt_d = torch.optim.Adam(model.disc.parameters(), lr=1e-3)
for it in range(ITERS):
    real = torch.randn(16, 8)
    fake = model.generate(torch.randn(16, 4))
    opt_d.zero_grad()
    d_loss = F.softplus(-model.disc(real)).mean() + F.softplus(model.disc(fake.detach())).mean()
    d_loss.backward()
    opt_d.step()
    opt_g.zero_grad()
    g_loss = F.softplus(-model.disc(fake)).mean()
    g_loss.backward()
    opt_g.step()
    print(f"{it} loss_D {d_loss.item():.6f} loss_G {g_loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
