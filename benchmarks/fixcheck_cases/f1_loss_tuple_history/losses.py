import torch
import torch.nn.functional as F


def vae_loss(recon, x, mu, logvar, beta=0.5):
    rec = F.mse_loss(recon, x, reduction="sum") / x.size(0)
    kl = -0.5 * torch.mean(torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1))
    return rec + beta * kl, rec, kl
