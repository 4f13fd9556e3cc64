import torch
import torch.nn as nn


class ActorCritic(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(6, 32), nn.Tanh())
        self.pi = nn.Linear(32, 3)
        self.v = nn.Linear(32, 1)

    def forward(self, obs):
        f = self.trunk(obs)
        return torch.distributions.Categorical(logits=self.pi(f)), self.v(f).squeeze(-1)
