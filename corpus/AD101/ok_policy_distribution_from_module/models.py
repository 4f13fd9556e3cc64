import torch
import torch.nn as nn
from torch.distributions import Categorical


class DiscretePolicy(nn.Module):
    def __init__(self, n_state, n_action):
        super().__init__()
        self.logits = nn.Sequential(nn.Linear(n_state, 16), nn.ReLU(), nn.Linear(16, n_action))

    def forward(self, state):
        return Categorical(logits=self.logits(state))


class Walker:
    """A plain environment stand-in, no parameters."""

    def __init__(self, batch):
        self.batch = batch

    def step(self, state, action):
        moved = state.clone()
        moved[:, 0] += action.float() - 0.5
        return moved, moved[:, 0].clamp(min=0)
