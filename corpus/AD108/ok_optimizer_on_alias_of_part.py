# expect-before: runs
# The generator's optimizer is built from `g_module`, an alias of
# `model.generator`; the second loss comes from a forward run after its step.
import os

import torch
from torch import nn, optim

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class AutoEncoderGAN(nn.Module):
    def __init__(self):
        super().__init__()
        self.generator = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
        self.encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))

    def forward(self, z):
        fake = self.generator(z)
        adv_loss = fake.pow(2).mean()
        rec_loss = (self.encoder(fake) - z).pow(2).mean()
        return adv_loss, rec_loss


def train(model, iters):
    g_module = model.generator
    g_optim = optim.Adam(g_module.parameters(), lr=1e-3)
    e_optim = optim.Adam(model.encoder.parameters(), lr=1e-3)
    for it in range(iters):
        adv_loss, rec_loss = model(torch.randn(16, 4))
        g_optim.zero_grad()
        adv_loss.backward()
        g_optim.step()
        _, rec_loss = model(torch.randn(16, 4))
        e_optim.zero_grad()
        rec_loss.backward()
        e_optim.step()
        print(f"{it} adv {adv_loss.item():.6f} rec {rec_loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = AutoEncoderGAN()
    train(model, ITERS)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
