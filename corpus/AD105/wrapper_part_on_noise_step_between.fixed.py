# expect-before: error Trying to backward through the graph a second time
# Two optimizers over the whole wrapper model (different learning rates): the
# D loss's gradients into `model.gen` are stepped by opt_d, so the fix is
# retain_graph=True on the D backward, not a detach. opt_d's step between the
# two backwards changes `model.gen` in place, but its one Linear runs on raw
# noise and saves no weight (read from `self.gen` in GAN.__init__), so the
# retained graph stays valid: safe, and the G loss needs no recomputing.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class GAN(nn.Module):
    def __init__(self):
        super().__init__()
        self.gen = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
        self.disc = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


torch.manual_seed(0)
model = GAN()
opt_d = torch.optim.SGD(model.parameters(), lr=0.05)
opt_g = torch.optim.Adam(model.parameters(), lr=1e-3)
for it in range(ITERS):
    real = torch.randn(16, 8)
    fake = model.gen(torch.randn(16, 4))
    opt_d.zero_grad()
    d_loss = F.softplus(-model.disc(real)).mean() + F.softplus(model.disc(fake)).mean()
    d_loss.backward(retain_graph=True)
    opt_d.step()
    opt_g.zero_grad()
    g_loss = F.softplus(-model.disc(fake)).mean()
    g_loss.backward()
    opt_g.step()
    print(f"{it} loss_D {d_loss.item():.6f} loss_G {g_loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
