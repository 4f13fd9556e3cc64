"""The networks of train.py; the landmark network's heatmaps are computed
without gradients."""
from types import SimpleNamespace

import torch
import torch.nn as nn


class Landmarks(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Linear(6, 6)

    @torch.no_grad()
    def heatmap(self, x):
        return torch.sigmoid(self.conv(x))


def build_nets():
    return SimpleNamespace(generator=nn.Linear(6, 6), discriminator=nn.Linear(6, 1), fan=Landmarks().eval())
