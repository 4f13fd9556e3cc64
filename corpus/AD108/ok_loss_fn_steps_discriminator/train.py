# expect-before: runs
# The shape of flag_loss_fn_steps_discriminator with a loss function that
# computes the total-correlation term again after stepping the
# discriminator: the trainer's backward walks weights saved after the step.
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
