import torch.nn as nn


class QuantileNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
        self.fraction = nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 1))
        self.quantile = nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 1))

    def embed(self, x):
        return self.encoder(x)

    def fractions(self, e):
        return self.fraction(e)

    def quantiles(self, e):
        return self.quantile(e)
