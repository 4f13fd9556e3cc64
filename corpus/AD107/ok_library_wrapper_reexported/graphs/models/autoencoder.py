import torch
import torch.nn as nn
import torch.nn.functional as F


class AutoEncoder(nn.Module):
    def __init__(self, encoder):
        super().__init__()
        self.encoder = encoder

    def encode(self, x):
        return self.encoder(x)

    def recon_loss(self, z, x):
        return F.mse_loss(z @ z.t(), x @ x.t())


class Adversarial(AutoEncoder):
    def __init__(self, encoder, discriminator):
        super().__init__(encoder)
        self.discriminator = discriminator

    def reg_loss(self, z):
        real = torch.sigmoid(self.discriminator(z))
        return -torch.log(real + 1e-15).mean()

    def discriminator_loss(self, z):
        real = torch.sigmoid(self.discriminator(torch.randn_like(z)))
        fake = torch.sigmoid(self.discriminator(z.detach()))
        return -torch.log(real + 1e-15).mean() - torch.log(1 - fake + 1e-15).mean()


class AdversarialAutoEncoder(Adversarial):
    def kl_loss(self, z):
        return 0.01 * z.pow(2).mean()
