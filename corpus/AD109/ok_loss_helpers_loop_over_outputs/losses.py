"""GAN losses over lists of discriminator outputs (as VITS / HiFi-GAN write them)."""
import torch


def discriminator_loss(real_outputs, fake_outputs):
    loss = 0
    r_losses = []
    g_losses = []
    for dr, dg in zip(real_outputs, fake_outputs):
        dr = dr.float()
        dg = dg.float()
        r_loss = torch.mean((1 - dr) ** 2)
        g_loss = torch.mean(dg ** 2)
        loss += r_loss + g_loss
        r_losses.append(r_loss.item())
        g_losses.append(g_loss.item())
    return loss, r_losses, g_losses


def generator_loss(outputs):
    loss = 0
    parts = []
    for dg in outputs:
        dg = dg.float()
        part = torch.mean((1 - dg) ** 2)
        parts.append(part)
        loss += part
    return loss, parts


def feature_loss(fmap_r, fmap_g):
    loss = 0
    for dr, dg in zip(fmap_r, fmap_g):
        for rl, gl in zip(dr, dg):
            rl = rl.float().detach()
            gl = gl.float()
            loss += torch.mean(torch.abs(rl - gl))
    return loss * 2
