# expect-before: runs
# VAE-GAN with ONE optimizer over encoder, decoder and D, the D backward
# retaining the graph: the encoder and decoder learn from the D loss too
# (their gradients from it are stepped), so `D(recon.detach())` would change
# the updates. The shared graph read through `mu` and `logvar` as well must
# not make a detach look safe.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

enc = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 6))
dec = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 8))
D = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt = torch.optim.Adam([p for m in (enc, dec, D) for p in m.parameters()], lr=1e-3)
for it in range(ITERS):
    x = torch.randn(16, 8)
    mu, logvar = enc(x).chunk(2, dim=1)
    recon = dec(mu + torch.randn_like(mu) * (0.5 * logvar).exp())
    opt.zero_grad()
    d_loss = F.softplus(-D(x)).mean() + F.softplus(D(recon)).mean()
    d_loss.backward(retain_graph=True)
    kl = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
    vae_loss = F.mse_loss(recon, x) + kl + 0.1 * F.softplus(-D(recon)).mean()
    vae_loss.backward()
    opt.step()
    print(f"{it} loss_D {d_loss.item():.6f} loss_VAE {vae_loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for m in (enc, dec, D) for p in m.parameters()):.6f}")
