"""A small actor-critic: the rollout is packed as it is, no network runs."""
import torch
from torch.utils.data import TensorDataset

from .base import Policy


class MLPPolicy(Policy):
    def __init__(self, n_in, n_act):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(n_in, 16), torch.nn.Tanh())
        self.pi = torch.nn.Linear(16, n_act)
        self.v = torch.nn.Linear(16, 1)

    def forward(self, x):
        h = self.body(x)
        return self.pi(h), self.v(h).squeeze(-1)

    def pack_rollout(self, *arrays):
        return TensorDataset(*arrays)
