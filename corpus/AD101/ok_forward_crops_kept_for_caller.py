# expect-before: runs
# A pix2pix-style model whose forward keeps random crops of its output on
# `self` for the discriminator's patch loss; the optimize method calls
# forward as a statement and backwards a loss built from those crops. The
# list is rebuilt by every forward: no graph outlives its iteration.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class PatchModel(nn.Module):
    def __init__(self, n_patches=3):
        super().__init__()
        self.net_g = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 8))
        self.net_d = nn.Linear(2, 1)
        self.n_patches = n_patches
        self.opt_g = torch.optim.Adam(self.net_g.parameters(), lr=1e-3)

    def forward(self, x):
        self.fake = self.net_g(x)
        self.fake_patches = []
        for i in range(self.n_patches):
            self.fake_patches.append(self.fake[:, 2 * i:2 * i + 2])
        return self.fake

    def optimize_parameters(self, x):
        self.forward(x)
        loss_g = sum(F.softplus(-self.net_d(p)).mean() for p in self.fake_patches) / self.n_patches
        self.opt_g.zero_grad()
        loss_g.backward()
        self.opt_g.step()
        return loss_g.item()


model = PatchModel()
for it in range(ITERS):
    print(f"{it} loss {model.optimize_parameters(torch.randn(4, 8)):.6f}")
print(f"checksum {sum(p.sum().item() for p in model.net_g.parameters()):.6f}")
