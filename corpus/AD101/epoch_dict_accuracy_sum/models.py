"""A discriminator whose loss method also returns a score for logging, a tensor computed on the same forward."""
import torch
import torch.nn as nn


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(3, 1)

    def d_loss(self, real, fake):
        p_real, p_fake = self.net(real).sigmoid(), self.net(fake).sigmoid()
        loss = -(p_real.log().mean() + (1 - p_fake).log().mean())
        acc = ((p_real - 0.5).pow(2).mean() + (p_fake - 0.5).pow(2).mean()) / 2  # how confident D is
        return loss, acc
