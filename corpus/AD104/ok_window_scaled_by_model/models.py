import torch
from torch import nn


class WindowNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.name = "WindowNet"
        self.n_window = 3
        self.gain = nn.Parameter(torch.ones(1))
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(3 * 4, 8), nn.Tanh(), nn.Linear(8, 4))

    def forward(self, window):
        return self.body(window)
