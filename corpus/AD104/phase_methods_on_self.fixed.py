# expect-before: runs
# autodetach-test: unsafe
# An inpainting GAN model in the pix2pix shape (the GMCNN trainer): each
# discriminator iteration calls `forward_D()`, which stores on `self` a loss
# built from `netD` on `completed.detach()` and on the ground truth, then
# `backward_D()` backwards it with retain_graph=True. Nothing backwards that
# graph again: the next D iteration and `forward_G()` run `netD` afresh (reads
# of `self.d_logit` there follow their own new store), and the rest of the file
# reads the D loss only through `.item()`. So the retain only keeps the D
# activations alive through `self.d_loss` until the next update. That no other
# file reads those attributes is inferred, so the fix is unsafe.
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

    def forward_D(self):
        self.d_logit = self.netD(self.completed.detach())
        self.gt_logit = self.netD(self.gt)
        self.d_loss = torch.relu(1.0 - self.gt_logit).mean()
        self.d_loss = self.d_loss + torch.relu(1.0 + self.d_logit).mean()

    def backward_D(self):
        self.d_loss.backward()

    def forward_G(self):
        self.g_loss = (self.completed - self.gt).abs().mean()
        self.d_logit = self.netD(self.completed)
        self.g_loss = self.g_loss - 0.1 * self.d_logit.mean()

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
        self.g_loss.backward()
        self.opt_G.step()

    def losses(self):
        return {"d": self.d_loss.item(), "g": self.g_loss.item()}


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Inpainter()
    for step in range(ITERS):
        model.set_input(torch.randn(4, 8))
        model.optimize_parameters()
        print(step, {k: f"{v:.6f}" for k, v in model.losses().items()})
    print(f"checksum {sum(p.sum().item() for p in model.netG.parameters()):.6f}")
