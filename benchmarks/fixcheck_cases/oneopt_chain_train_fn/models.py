import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, d_in=8, d_z=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 16), nn.Tanh(), nn.Linear(16, d_z))

    def forward(self, x):
        return self.net(x)


class Generator(nn.Module):
    def __init__(self, d_z=4, d_out=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_z, 16), nn.Tanh(), nn.Linear(16, d_out))

    def forward(self, z):
        return self.net(z)
