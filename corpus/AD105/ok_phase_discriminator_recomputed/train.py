# expect-before: runs
# A FactorVAE whose loss function takes the framework's optimizer index: the
# VAE phase (optimizer_idx 0) keeps the discriminator's output on self for
# logging, and the discriminator phase (optimizer_idx 1) scores the latent
# codes again, detached, instead of reusing the stored output: nothing it
# backwards was freed by the VAE phase.
import os

import torch
import torch.nn.functional as F
from torch import nn

from runner import fit

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class FactorVAE(nn.Module):
    def __init__(self, d=6, latent=3):
        super().__init__()
        self.encoder = nn.Linear(d, 2 * latent)
        self.decoder = nn.Linear(latent, d)
        self.discriminator = nn.Sequential(nn.Linear(latent, 16), nn.LeakyReLU(0.2), nn.Linear(16, 2))

    def forward(self, x):
        mu, log_var = self.encoder(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * (0.5 * log_var).exp()
        return [self.decoder(z), x, mu, log_var, z]

    def permute_latent(self, z):
        return torch.stack([col[torch.randperm(z.size(0))] for col in z.t()], dim=1)

    def loss_function(self, *args, **kwargs):
        recons, x, mu, log_var, z = args
        optimizer_idx = kwargs["optimizer_idx"]
        if optimizer_idx == 0:
            recons_loss = F.mse_loss(recons, x)
            kld = torch.mean(-0.5 * torch.sum(1 + log_var - mu ** 2 - log_var.exp(), dim=1))
            self.d_z = self.discriminator(z)
            tc_loss = (self.d_z[:, 0] - self.d_z[:, 1]).mean()
            return {"loss": recons_loss + 0.1 * kld + 2.0 * tc_loss, "tc": tc_loss}
        elif optimizer_idx == 1:
            ones = torch.ones(x.size(0), dtype=torch.long)
            d_z = self.discriminator(z.detach())
            d_perm = self.discriminator(self.permute_latent(z.detach()))
            d_tc_loss = 0.5 * (F.cross_entropy(d_z, 1 - ones) + F.cross_entropy(d_perm, ones))
            return {"loss": d_tc_loss, "d_tc": d_tc_loss}


torch.manual_seed(0)
model = FactorVAE()
opts = [torch.optim.Adam(model.parameters(), lr=1e-3),
        torch.optim.Adam(model.discriminator.parameters(), lr=1e-3)]
losses = fit(model, opts, [torch.randn(16, 6) for _ in range(ITERS)])
for it, value in enumerate(losses):
    print(f"{it} loss {value:.6f}")
