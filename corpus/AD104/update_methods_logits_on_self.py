# expect-before: runs
# autodetach-test: unsafe
# A GAN trainer whose `update_D()` runs the discriminator on `fake.detach()`
# and on real data, keeps the logits on `self` for logging, and backwards a
# local hinge loss with retain_graph=True. `update_G()` stores a new
# `self.d_logit` from its own `netD` forward before reading it, and the real
# logits are only logged through `.item()`: no later backward reaches the
# retained D graph, which the logits on `self` keep alive until the next
# update. That no other file reads those attributes is inferred, so the fix
# is unsafe.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Inpainter:
    def __init__(self):
        self.netG = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
        self.netD = nn.Linear(8, 1)
        self.opt_G = torch.optim.Adam(self.netG.parameters(), lr=0.01)
        self.opt_D = torch.optim.Adam(self.netD.parameters(), lr=0.01)
        self.d_iters = 2
        self.d_logit, self.gt_logit = None, None
        self.d_loss, self.g_loss = None, None

    def set_input(self, gt):
        self.gt = gt
        self.mask = (torch.rand(gt.shape) > 0.5).float()

    def update_D(self):
        self.d_logit = self.netD(self.completed.detach())
        self.gt_logit = self.netD(self.gt)
        loss_d = torch.relu(1.0 - self.gt_logit).mean() + torch.relu(1.0 + self.d_logit).mean()
        loss_d.backward(retain_graph=True)
        self.d_loss = loss_d.item()

    def update_G(self):
        self.g_loss = (self.completed - self.gt).abs().mean()
        self.d_logit = self.netD(self.completed)
        self.g_loss = self.g_loss - 0.1 * self.d_logit.mean()

    def optimize_parameters(self):
        pred = self.netG(self.gt * (1 - self.mask))
        self.completed = pred * self.mask + self.gt * (1 - self.mask)
        for _ in range(self.d_iters):
            self.opt_D.zero_grad()
            self.update_D()
            self.opt_D.step()
        self.opt_G.zero_grad()
        self.update_G()
        self.g_loss.backward()
        self.opt_G.step()

    def losses(self):
        return {"d": self.d_loss, "g": self.g_loss.item(), "real": self.gt_logit.mean().item()}


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Inpainter()
    for step in range(ITERS):
        model.set_input(torch.randn(4, 8))
        model.optimize_parameters()
        print(step, {k: f"{v:.6f}" for k, v in model.losses().items()})
    print(f"checksum {sum(p.sum().item() for p in model.netG.parameters()):.6f}")
