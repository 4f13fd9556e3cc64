# expect-before: runs
# The ESRGAN-style step written correctly: the generator's optimizer is built
# on a list appended from `named_parameters()`, and the detector trains on
# the generator's output detached, so no backward walks the stepped generator.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Model:
    def __init__(self):
        self.net_g = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))
        self.net_det = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
        optim_params = []
        for k, v in self.net_g.named_parameters():
            if v.requires_grad:
                optim_params.append(v)
        self.optimizer_g = torch.optim.Adam(optim_params, lr=1e-3)
        self.optimizer_det = torch.optim.SGD(self.net_det.parameters(), lr=1e-2)

    def optimize(self, x, target):
        self.optimizer_g.zero_grad()
        sr = self.net_g(x)
        loss_g = ((sr - target) ** 2).mean()
        loss_g.backward()
        self.optimizer_g.step()
        self.optimizer_det.zero_grad()
        loss_det = self.net_det(sr.detach()).mean()
        loss_det.backward()
        self.optimizer_det.step()
        print(f"g loss {loss_g.item():.6f} det loss {loss_det.item():.6f}")


torch.manual_seed(0)
model = Model()
for it in range(ITERS):
    model.optimize(torch.randn(8, 4), torch.randn(8, 4))
print(f"checksum {sum(p.sum().item() for p in model.net_g.parameters()):.6f}")
