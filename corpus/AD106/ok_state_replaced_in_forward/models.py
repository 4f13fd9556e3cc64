"""Two anomaly models; the loop picks its arm by the model's name."""
import torch
from torch import nn


class NoisyGRU(nn.Module):
    def __init__(self, feats):
        super().__init__()
        self.name = "NoisyGRU"
        self.gru = nn.GRU(feats, 8)
        self.out = nn.Linear(8, feats)

    def forward(self, x, state=None):
        # a fresh random state at every step once one is handed in: the caller's is dropped
        state = torch.randn(1, 1, 8) if state is not None else state
        y, state = self.gru(x.view(1, 1, -1), state)
        return self.out(y.view(-1)), state


class Plain(nn.Module):
    def __init__(self, feats):
        super().__init__()
        self.name = "Plain"
        self.lin = nn.Linear(feats, feats)

    def forward(self, x):
        return self.lin(x)
