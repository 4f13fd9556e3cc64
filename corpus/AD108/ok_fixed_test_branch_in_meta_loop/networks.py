import torch.nn as nn


def feature_net(dim, width):
    return nn.Sequential(nn.Linear(dim, width), nn.Tanh())


class Critic(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, 1)

    def forward(self, feat):
        return self.fc(feat).pow(2).mean()
