import torch
from torch import nn

from losses import hinge_d


class Inpainter:
    """forward_D/backward_D phases on `self`; the D loss is retained for nothing."""

    def __init__(self):
        self.netG = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
        self.netD = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))
        self.opt_G = torch.optim.Adam(self.netG.parameters(), lr=0.01)
        self.opt_D = torch.optim.Adam(self.netD.parameters(), lr=0.01)
        self.loss = {}

    def set_input(self, gt):
        self.gt = gt
        self.mask = (torch.rand(gt.shape) > 0.5).float()

    def forward_D(self):
        self.fake_logit = self.netD(self.completed.detach())
        self.real_logit = self.netD(self.gt)
        self.loss["d"] = hinge_d(self.real_logit, self.fake_logit)

    def backward_D(self):
        self.loss["d"].backward(retain_graph=True)

    def forward_G(self):
        self.loss["g"] = (self.completed - self.gt).abs().mean()
        self.fake_logit = self.netD(self.completed)
        self.loss["g"] = self.loss["g"] - 0.1 * self.fake_logit.mean()

    def optimize_parameters(self):
        self.completed = self.netG(self.gt * (1 - self.mask)) * self.mask + self.gt * (1 - self.mask)
        for _ in range(2):
            self.opt_D.zero_grad()
            self.forward_D()
            self.backward_D()
            self.opt_D.step()
        self.opt_G.zero_grad()
        self.forward_G()
        self.loss["g"].backward()
        self.opt_G.step()
