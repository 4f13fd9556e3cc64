# expect-before: runs
# The shape of flag_loss_fn_dict_update with a loss function that computes
# the VAE's term again after stepping the discriminator: the dict merged by
# `losses.update(...)` holds a total whose graph saved the discriminator's
# weights after the step, and the discriminator loss as a number. (Kept as
# a tensor beside the total, it would be read with it once the dict comes
# back through `losses, outputs = self.vae_base(...)`: a known imprecision.)
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
        out["tc"], disc_loss = tc_loss_fn(2.0, self.disc, self.disc_opt, self.ones, self.zeros, **kwargs)
        out["disc"] = disc_loss.item()
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
        return losses["total"].item(), losses["disc"]


trainer = Trainer()
for step in range(ITERS):
    total, disc = trainer.train_step(torch.randn(8, 6))
    print(f"{step} loss {total:.6f} {disc:.6f}")
print(f"checksum {sum(p.sum().item() for p in trainer.encoder.parameters()):.6f}")
