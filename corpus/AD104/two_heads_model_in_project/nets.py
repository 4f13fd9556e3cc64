import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3))

    def forward(self, x):
        return self.body(x)

    def optimizer(self, lr):
        return torch.optim.SGD(self.parameters(), lr=lr)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))

    def forward(self, x):
        return self.body(x)

    def optimizer(self, lr):
        return torch.optim.SGD(self.parameters(), lr=lr)
