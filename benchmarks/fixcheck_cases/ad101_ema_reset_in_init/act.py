"""A learnable activation that collects moving averages of its input in a first phase."""
import torch
import torch.nn.functional as F
from torch import nn


class StatAct(nn.Module):
    def __init__(self, momentum=0.9):
        super().__init__()
        self.momentum = momentum
        self.slope = nn.Parameter(torch.tensor(1.0))
        self.register_buffer("running_mean", torch.zeros(1))
        self.register_buffer("running_var", torch.ones(1))
        self.reset_parameters()

    def reset_parameters(self):
        self.running_mean.zero_()
        self.running_var.fill_(1)

    def forward(self, x, collect=True):
        if collect:
            self.running_mean = self.momentum * self.running_mean + (1 - self.momentum) * x.mean()
            self.running_var = self.momentum * self.running_var + (1 - self.momentum) * x.var()
            return F.relu(x)
        return F.leaky_relu(x * self.slope)
