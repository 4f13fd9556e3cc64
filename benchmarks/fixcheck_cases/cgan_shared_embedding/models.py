import torch
import torch.nn as nn


class CondG(nn.Module):
    def __init__(self, emb):
        super().__init__()
        self.emb = emb
        self.net = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8))

    def forward(self, z, y):
        return self.net(torch.cat([z, self.emb(y)], 1))


class CondD(nn.Module):
    def __init__(self, emb):
        super().__init__()
        self.emb = emb
        self.net = nn.Sequential(nn.Linear(12, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))

    def forward(self, x, y):
        return self.net(torch.cat([x, self.emb(y)], 1))
