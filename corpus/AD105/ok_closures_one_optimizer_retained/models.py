import torch
import torch.nn as nn


class Encoder(nn.Module):
    """One linear layer on the raw input: its graph saves the input, not the
    weight, so a step between the two backwards does not break them."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(5, 6)

    def forward(self, x):
        return torch.tanh(self.proj(x))
