import torch
import torch.nn as nn


class Actor(nn.Module):
    def __init__(self, obs=6, act=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs, 16), nn.Tanh(), nn.Linear(16, act))

    def forward(self, s):
        return torch.distributions.Categorical(logits=self.net(s))


class Critic(nn.Module):
    def __init__(self, obs=6):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs, 16), nn.Tanh(), nn.Linear(16, 1))

    def forward(self, s):
        return self.net(s).squeeze(-1)
