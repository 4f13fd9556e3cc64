import torch
import torch.nn as nn
from torch.distributions import Categorical


class RecurrentPolicy(nn.Module):
    def __init__(self, obs_dim=3, width=8, n_actions=2):
        super().__init__()
        self.cell = nn.GRUCell(obs_dim, width)
        self.logits = nn.Linear(width, n_actions)

    def forward(self, obs, h):
        h = self.cell(obs.view(1, -1), h)
        return self.logits(h), h

    def act(self, obs, h):
        logits, h = self.forward(obs, h)
        dist = Categorical(logits=logits)
        a = dist.sample()
        return dist.log_prob(a), h
