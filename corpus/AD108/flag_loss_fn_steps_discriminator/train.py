# expect-before: error modified by an inplace operation
# A FactorVAE trainer whose loss function, in another file, also trains the
# permutation discriminator: it computes the total-correlation term from
# `PermD(z)`, backwards the discriminator loss with retain_graph and steps
# `optim_PermD`, then returns that term. The trainer adds it to the VAE loss
# and backwards it through the discriminator weights saved before the step.
# Reported without a fix: the order of the steps is read from the loss
# function's code (compute the term again after the step, or step later).
import os

import torch
from torch import nn

from factorvae import factorvae_loss_fn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Trainer:
    def __init__(self):
        self.encoder = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2))
        self.decoder = nn.Linear(2, 6)
        self.PermD = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 2))
        self.optim_G = torch.optim.Adam(list(self.encoder.parameters()) + list(self.decoder.parameters()), lr=1e-2)
        self.optim_PermD = torch.optim.Adam(self.PermD.parameters(), lr=1e-2)
        self.ones = torch.ones(8, dtype=torch.long)
        self.zeros = torch.zeros(8, dtype=torch.long)

    def train_step(self, x):
        z = self.encoder(x)
        recon = nn.functional.mse_loss(self.decoder(z), x)
        tc, d_tc = factorvae_loss_fn(2.0, self.PermD, self.optim_PermD, self.ones, self.zeros, z=z)
        total = recon + tc
        self.optim_G.zero_grad()
        total.backward()
        self.optim_G.step()
        return total.item(), d_tc.item()


trainer = Trainer()
for step in range(ITERS):
    total, d_tc = trainer.train_step(torch.randn(8, 6))
    print(f"{step} loss {total:.6f} {d_tc:.6f}")
print(f"checksum {sum(p.sum().item() for p in trainer.encoder.parameters()):.6f}")
