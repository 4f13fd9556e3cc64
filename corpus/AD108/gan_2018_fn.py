# expect-before: error modified by an inplace operation
# autodetach-test: unsafe
# A train() function from a 2018 conditional-GAN repository: errG is built
# next to errD, before optD.step() rewrites netD's weights in place.
import os

import torch
import torch.nn as nn
import torch.optim as optim

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
N_CLASSES = 3


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.label_emb = nn.Embedding(N_CLASSES, 4)
        self.model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 8), nn.Tanh())

    def forward(self, noise, labels):
        return self.model(torch.cat([noise, self.label_emb(labels)], dim=1))


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.label_emb = nn.Embedding(N_CLASSES, 4)
        self.model = nn.Sequential(nn.Linear(12, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))

    def forward(self, x, labels):
        return self.model(torch.cat([x, self.label_emb(labels)], dim=1))


def train(netG, netD, iters, batch=16):
    criterion = nn.MSELoss()
    optG = optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optD = optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    for i in range(iters):
        labels = torch.randint(0, N_CLASSES, (batch,))
        real = torch.randn(batch, 8) * 0.3 + labels.float().unsqueeze(1)
        fake = netG(torch.randn(batch, 6), labels)
        ones = torch.ones(batch, 1)
        zeros = torch.zeros(batch, 1)
        errD = 0.5 * (criterion(netD(real, labels), ones) + criterion(netD(fake.detach(), labels), zeros))
        errG = criterion(netD(fake, labels), ones)
        optD.zero_grad()
        errD.backward()
        optD.step()
        optG.zero_grad()
        errG.backward()
        optG.step()
        print(f"{i} errD {errD.item():.6f} errG {errG.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    netG, netD = Generator(), Discriminator()
    train(netG, netD, ITERS)
    print(f"checksum {sum(p.sum().item() for p in netG.parameters()):.6f}")
