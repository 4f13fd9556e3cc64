import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, z_dim=4, x_dim=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, 16), nn.ReLU(), nn.Linear(16, x_dim))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, x_dim=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(x_dim, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))

    def forward(self, x):
        return self.net(x)


MODELS = {"generator": Generator, "discriminator": Discriminator}


def build(name, **kwargs):
    return MODELS[name](**kwargs)
