"""The project's VAE-style losses: the parts, left to the caller to weigh."""
import torch
import torch.nn.functional as F


def vae_parts(model, x):
    recon, mu, logvar = model(x)
    rec = F.mse_loss(recon, x)
    kl = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
    return rec, kl
