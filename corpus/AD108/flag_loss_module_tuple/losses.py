import torch
import torch.nn as nn
import torch.nn.functional as F


class GanLoss(nn.Module):
    """Both losses from one forward: D's through the generator's graph."""

    def forward(self, generator, discriminator, real, z):
        fake = generator(z)
        g_loss = F.binary_cross_entropy_with_logits(discriminator(fake), torch.ones(real.size(0), 1))
        d_real = discriminator(real.detach())
        d_fake = discriminator(fake)
        d_loss = 0.5 * (F.binary_cross_entropy_with_logits(d_real, torch.ones(real.size(0), 1)) +
                        F.binary_cross_entropy_with_logits(d_fake, torch.zeros(real.size(0), 1)))
        return g_loss, d_loss, fake
