# expect-before: error Trying to backward through the graph a second time
# VAE-GAN: the D step reads the reconstruction, and the VAE loss reads the
# reconstruction and also `mu` and `logvar` (its KL term) on their own. The D
# backward frees the encoder/decoder graph; their gradients from it are zeroed
# before opt_vae steps. Cut where the D loss enters the shared graph:
# `D(recon.detach())` (the KL term's own path to the encoder needs no cut).
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

enc = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 6))
dec = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 8))
D = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt_vae = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
for it in range(ITERS):
    x = torch.randn(16, 8)
    mu, logvar = enc(x).chunk(2, dim=1)
    recon = dec(mu + torch.randn_like(mu) * (0.5 * logvar).exp())
    opt_d.zero_grad()
    d_loss = F.softplus(-D(x)).mean() + F.softplus(D(recon)).mean()
    d_loss.backward()
    opt_d.step()
    opt_vae.zero_grad()
    kl = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
    vae_loss = F.mse_loss(recon, x) + kl + 0.1 * F.softplus(-D(recon)).mean()
    vae_loss.backward()
    opt_vae.step()
    print(f"{it} loss_D {d_loss.item():.6f} loss_VAE {vae_loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for m in (enc, dec, D) for p in m.parameters()):.6f}")
