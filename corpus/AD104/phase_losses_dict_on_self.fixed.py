# expect-before: runs
# autodetach-test: unsafe
# phase_methods_on_self with its losses in a dict on `self` (the trainer shape
# that logs `self.loss`): `forward_D()` stores `self.loss["d"]`, built from
# `netD` on `completed.detach()`, and `backward_D()` backwards it with
# retain_graph=True. `forward_G()` stores `self.loss["g"]` from a new `netD`
# forward before it reads that entry, and the D entry is read afterwards only
# through `.item()`, so no later backward uses the retained graph. That no other
# file reads `self.loss` is inferred, so the fix is unsafe.
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
        self.loss = {}

    def set_input(self, gt):
        self.gt = gt
        self.mask = (torch.rand(gt.shape) > 0.5).float()

    def forward_D(self):
        self.d_logit = self.netD(self.completed.detach())
        self.gt_logit = self.netD(self.gt)
        self.loss["d"] = torch.relu(1.0 - self.gt_logit).mean() + torch.relu(1.0 + self.d_logit).mean()

    def backward_D(self):
        self.loss["d"].backward()

    def forward_G(self):
        self.loss["g"] = (self.completed - self.gt).abs().mean()
        self.d_logit = self.netD(self.completed)
        self.loss["g"] = self.loss["g"] - 0.1 * self.d_logit.mean()

    def optimize_parameters(self):
        pred = self.netG(self.gt * (1 - self.mask))
        self.completed = pred * self.mask + self.gt * (1 - self.mask)
        for _ in range(self.d_iters):
            self.opt_D.zero_grad()
            self.forward_D()
            self.backward_D()
            self.opt_D.step()
        self.opt_G.zero_grad()
        self.forward_G()
        self.loss["g"].backward()
        self.opt_G.step()

    def losses(self):
        return {"d": self.loss["d"].item(), "g": self.loss["g"].item()}


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Inpainter()
    for step in range(ITERS):
        model.set_input(torch.randn(4, 8))
        model.optimize_parameters()
        print(step, {k: f"{v:.6f}" for k, v in model.losses().items()})
    print(f"checksum {sum(p.sum().item() for p in model.netG.parameters()):.6f}")
