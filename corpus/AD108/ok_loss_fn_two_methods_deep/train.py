# expect-before: runs
# The shape of flag_loss_fn_two_methods_deep with a loss function that
# computes the VAE's term again after stepping the discriminator: the
# trainer's backward walks weights saved after the step. (Its losses come back
# as a tuple: a dict holding the stale discriminator loss beside the total
# is read whole, a known imprecision.)
import os

import torch
from torch import nn

from factorvae import tc_loss_fn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Trainer:
    def __init__(self):
        self.encoder = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2))
        self.decoder = nn.Linear(2, 6)
        self.disc = nn.Sequential(nn.Linear(2, 8), nn.LeakyReLU(0.2), nn.Linear(8, 2))
        self.vae_opt = torch.optim.Adam(list(self.encoder.parameters()) + list(self.decoder.parameters()), lr=1e-2)
        self.disc_opt = torch.optim.Adam(self.disc.parameters(), lr=1e-2)
        self.ones = torch.ones(8, dtype=torch.long)
        self.zeros = torch.zeros(8, dtype=torch.long)

    def loss_terms(self, **kwargs):
        recon = nn.functional.mse_loss(kwargs["x_recon"], kwargs["x"])
        tc, disc = tc_loss_fn(2.0, self.disc, self.disc_opt, self.ones, self.zeros, **kwargs)
        return recon + tc, disc

    def forward_losses(self, x):
        z = self.encoder(x)
        args = dict(x=x, x_recon=self.decoder(z), z=z)
        return self.loss_terms(**args)

    def train_step(self, x):
        total, disc = self.forward_losses(x)
        self.vae_opt.zero_grad()
        total.backward()
        self.vae_opt.step()
        return total.item(), disc.item()


trainer = Trainer()
for step in range(ITERS):
    total, disc = trainer.train_step(torch.randn(8, 6))
    print(f"{step} loss {total:.6f} {disc:.6f}")
print(f"checksum {sum(p.sum().item() for p in trainer.encoder.parameters()):.6f}")
