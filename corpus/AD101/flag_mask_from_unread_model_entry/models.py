import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x, mask):
        # one dropout mask per batch: drawn on the first call, handed back as given after that
        if mask is None:
            mask = torch.bernoulli(torch.full((1, 4), 0.5))
        return self.lin(x) * mask, mask


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 1)

    def forward(self, rep, mask):
        return self.lin(rep), mask
