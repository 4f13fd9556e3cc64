"""A layer whose weight evolves: a GRU updates it at every call and the
layer keeps it on `self` for the next call (the EvolveGCN shape)."""
import torch
from torch import nn
from torch.nn import GRU


class EvolvingLinear(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.initial_weight = nn.Parameter(torch.randn(1, dim, dim) * 0.1)
        self.evolve = GRU(input_size=dim, hidden_size=dim)
        self.weight = None

    def reset_weight(self):
        self.weight = None

    def forward(self, x):
        summary = x.mean(0, keepdim=True).unsqueeze(0).expand(1, x.size(1), x.size(1))
        if self.weight is None:
            _, self.weight = self.evolve(summary, self.initial_weight)
        else:
            _, self.weight = self.evolve(summary, self.weight)
        return x @ self.weight.squeeze(0)
