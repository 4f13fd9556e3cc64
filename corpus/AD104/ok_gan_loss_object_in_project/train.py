# expect-before: runs
# The same pix2pix-style model, but losses.py does not detach the fake image:
# backward_D walks into the generator's graph that forward() kept on self,
# and backward_G needs that graph again, so retain_graph=True is needed.
import os

import torch
from torch import nn

from losses import init_loss

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
class Pix2Pix:
    def __init__(self):
        self.netG = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 6))
        self.netD = nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=1e-3)
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=1e-3)
        self.disc_loss = init_loss("gan")
        self.content = nn.L1Loss()

    def set_input(self, a, b):
        self.real_A = a
        self.real_B = b

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    def backward_D(self):
        self.loss_D = self.disc_loss.get_loss(self.netD, self.fake_B, self.real_B)
        self.loss_D.backward(retain_graph=True)

    def backward_G(self):
        self.loss_G = self.disc_loss.get_g_loss(self.netD, self.fake_B) + self.content(self.fake_B, self.real_B)
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()

    def errors(self):
        return {"D": self.loss_D.item(), "G": self.loss_G.item()}


torch.manual_seed(0)
model = Pix2Pix()
for step in range(ITERS):
    model.set_input(torch.randn(8, 6), torch.randn(8, 6))
    model.optimize_parameters()
    print(step, round(model.errors()["D"], 6), round(model.errors()["G"], 6))
