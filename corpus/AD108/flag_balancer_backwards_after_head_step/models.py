"""A shared trunk with one prediction head per task."""
import torch
import torch.nn as nn


class MultiTaskNet(nn.Module):
    def __init__(self, features=8, hidden=16):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(features, hidden), nn.ReLU())
        self.head_click = nn.Linear(hidden, 1)
        self.head_buy = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.trunk(x)
        return self.head_click(h), self.head_buy(torch.tanh(h))
