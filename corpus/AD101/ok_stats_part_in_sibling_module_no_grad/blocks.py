"""Coupling blocks; their output normalisation keeps statistics in train.RunningMoments."""
import torch
import torch.nn as nn

from train import RunningMoments


class Shift(nn.Module):
    def __init__(self, features, hidden=16):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(features, hidden), nn.Tanh(), nn.Linear(hidden, features))

    def forward(self, x):
        return self.body(x)


class AffineCoupling(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.shift = Shift(features)
        self.moments = RunningMoments(features)

    def forward(self, x):
        y = x + self.shift(x)
        with torch.no_grad():
            mean, var = self.moments(y)
        return (y - mean) * torch.rsqrt(var + 1e-5)
