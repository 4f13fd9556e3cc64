"""A GAN trainer module that computes every loss in one forward and keeps
its optimizers as attributes."""
import torch
from torch import nn


class Trainer(nn.Module):
    def __init__(self):
        super().__init__()
        self.netG = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 6))
        self.netD = nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self.optimizer_g = torch.optim.Adam(self.netG.parameters(), lr=1e-3)
        self.optimizer_d = torch.optim.Adam(self.netD.parameters(), lr=1e-3)

    def forward(self, real, z):
        fake = self.netG(z)
        losses = {}
        losses["d"] = self.netD(fake.detach()).mean() - self.netD(real).mean()
        losses["g"] = -self.netD(fake).mean()
        return losses
