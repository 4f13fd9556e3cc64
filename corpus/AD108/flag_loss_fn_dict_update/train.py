# expect-before: error modified by an inplace operation
# A disentanglement trainer that fills one dict of losses across methods:
# train_step() starts `losses = dict()` and hands it to self.vae_base(), which
# merges what self.loss_fn() returns into it (`losses.update(...)`) and hands
# it back with the outputs. loss_fn() sums its terms into `out["total"]` with
# `+=`, one of them from a loss function of another file that builds the
# VAE's term from `disc(z)`, then backwards the discriminator loss and steps
# `disc_opt`. The backward of `losses["total"]` walks the discriminator
# weights saved before that step. Reported without a fix: the order is read
# from the loss function's code.
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

    def loss_fn(self, given, **kwargs):
        out = dict()
        out["total"] = given.get("total", 0)
        out["recon"] = nn.functional.mse_loss(kwargs["x_recon"], kwargs["x"])
        out["total"] += out["recon"]
        out["tc"], out["disc"] = tc_loss_fn(2.0, self.disc, self.disc_opt, self.ones, self.zeros, **kwargs)
        out["total"] += out["tc"]
        return out

    def vae_base(self, losses, x):
        z = self.encoder(x)
        args = dict(x=x, x_recon=self.decoder(z), z=z)
        losses.update(self.loss_fn(losses, **args))
        return losses, {"z": z}

    def train_step(self, x):
        losses = dict()
        losses, outputs = self.vae_base(losses, x)
        self.vae_opt.zero_grad()
        losses["total"].backward()
        self.vae_opt.step()
        return losses["total"].item(), losses["disc"].item()


trainer = Trainer()
for step in range(ITERS):
    total, disc = trainer.train_step(torch.randn(8, 6))
    print(f"{step} loss {total:.6f} {disc:.6f}")
print(f"checksum {sum(p.sum().item() for p in trainer.encoder.parameters()):.6f}")
