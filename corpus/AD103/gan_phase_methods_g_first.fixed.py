# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A pix2pix-style model split into phase methods, generator first:
# `forward()` stores the generator's output on `self`, `backward_G()` frees
# its graph, and `backward_D()` reads the same output without `.detach()`.
# The discriminator's gradients into the generator are zeroed before the
# generator's next step, so detaching there changes no update (inferred: the
# loop that calls `optimize_parameters()` is in the caller).
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Pix2PixModel:
    def __init__(self):
        self.netG = nn.Linear(4, 4)
        self.netD = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self.criterionGAN = nn.MSELoss()
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=1e-3)
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=1e-3)
        self.optimizers = [self.optimizer_G, self.optimizer_D]

    def set_input(self, batch):
        self.real_A = batch[:, :4]
        self.real_B = batch[:, 4:]

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    def backward_G(self):
        pred_fake = self.netD(self.fake_B)
        self.loss_G = self.criterionGAN(pred_fake, torch.ones_like(pred_fake))
        self.loss_G.backward()

    def backward_D(self):
        pred_fake = self.netD(self.fake_B.detach())
        pred_real = self.netD(self.real_B)
        self.loss_D = (self.criterionGAN(pred_fake, torch.zeros_like(pred_fake))
                       + self.criterionGAN(pred_real, torch.ones_like(pred_real)))
        self.loss_D.backward()

    def optimize_parameters(self):
        self.forward()
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Pix2PixModel()
    for it in range(ITERS):
        model.set_input(torch.randn(8, 8))
        model.optimize_parameters()
        print(f"{it} loss_G {model.loss_G.item():.6f} loss_D {model.loss_D.item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.netD.parameters()):.6f}")
