# expect-before: runs
# A GAN model class whose forward() keeps the synthesised image on self; the
# script (run.py, through the factory in builder.py) steps the generator
# first, then trains the discriminator on a fresh score of the detached
# image: nothing the discriminator backwards went through the stepped
# generator.
import os

import torch
import torch.nn.functional as F
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class PoseGAN:
    def initialize(self, lr):
        self.G = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 6))
        self.D = nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
        self.optimizer_G = torch.optim.Adam(self.G.parameters(), lr=lr)
        self.optimizer_D = torch.optim.Adam(self.D.parameters(), lr=lr)

    def forward(self, image):
        self.image = image
        self.syn_image = self.G(image)
        self.syn = self.D(self.syn_image)
        self.real = self.D(image)

    def backward_G(self):
        self.loss_G = F.softplus(-self.syn).mean() + F.l1_loss(self.syn_image, self.image)
        self.loss_G.backward(retain_graph=True)

    def backward_D(self):
        self.loss_D = F.softplus(self.D(self.syn_image.detach())).mean() + F.softplus(-self.real).mean()
        self.loss_D.backward()

    def optimize_G_parameters(self):
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()

    def optimize_D_parameters(self):
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    assert ITERS > 0
    import run  # noqa: F401  (the script trains on import)
