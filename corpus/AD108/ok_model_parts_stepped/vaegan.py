# The model of the case: one module with three parts, each with its own optimizer.
import torch
from torch import nn


class VaeGan(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4))
        self.decoder = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
        self.discriminator = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))

    def forward(self, x):
        x_tilde = self.decoder(self.encoder(x))
        return x_tilde, self.discriminator(torch.cat([x, x_tilde]))
