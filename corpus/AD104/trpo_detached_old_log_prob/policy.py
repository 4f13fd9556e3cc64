import torch
import torch.nn as nn


class GaussianPolicy(nn.Module):
    def __init__(self, obs_dim=4, act_dim=2):
        super().__init__()
        self.mu = nn.Sequential(nn.Linear(obs_dim, 16), nn.Tanh(), nn.Linear(16, act_dim))
        self.log_std = nn.Parameter(torch.zeros(act_dim))

    def forward(self, obs):
        return self.mu(obs)

    def log_prob(self, obs, act):
        dist = torch.distributions.Normal(self.mu(obs), self.log_std.exp())
        return dist.log_prob(act).sum(-1)
