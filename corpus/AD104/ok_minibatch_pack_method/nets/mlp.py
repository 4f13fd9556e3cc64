"""An actor-critic over a learned projection of the states: the rollout is
packed as projected features, which carry the projection's graph."""
import torch
from torch.utils.data import TensorDataset

from .base import Policy


class MLPPolicy(Policy):
    def __init__(self, n_in, n_act):
        super().__init__()
        self.proj = torch.nn.Parameter(torch.randn(n_in, 8) * 0.5)
        self.pi = torch.nn.Linear(8, n_act)
        self.v = torch.nn.Linear(8, 1)

    def heads(self):
        return [*self.pi.parameters(), *self.v.parameters()]

    def forward(self, feats):
        h = torch.tanh(feats)
        return self.pi(h), self.v(h).squeeze(-1)

    def pack_rollout(self, states, *arrays):
        return TensorDataset(states @ self.proj, *arrays)
