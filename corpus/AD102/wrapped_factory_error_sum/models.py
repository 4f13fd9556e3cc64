"""The project's models (imported by train.py): a factory builds the network."""
import torch.nn as nn


class Counter(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, width), nn.ReLU(), nn.Linear(width, 1))

    def forward(self, x):
        out = self.body(x)
        return out, out.mean(1)


def build_model(width=16):
    return Counter(width)
