import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, x_dim=8, z_dim=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(x_dim, 16), nn.ReLU(), nn.Linear(16, 2 * z_dim))

    def forward(self, x):
        mu, logvar = self.net(x).chunk(2, dim=1)
        return mu, logvar


def reparameterize(mu, logvar):
    return mu + torch.randn_like(mu) * (0.5 * logvar).exp()


def decoder(z_dim=3, x_dim=8):
    return nn.Sequential(nn.Linear(z_dim, 16), nn.ReLU(), nn.Linear(16, x_dim))


def critic(x_dim=8):
    return nn.Sequential(nn.Linear(x_dim, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
