"""The detector of train.py: a trunk shared by a box head and a class head."""
import torch
import torch.nn as nn


class Detector(nn.Module):
    def __init__(self, channels=8, classes=3):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(channels, 16), nn.ReLU())
        self.box = nn.Linear(16, 4)
        self.cls = nn.Linear(16, classes)

    def forward(self, x):
        h = self.trunk(x)
        return self.box(h), self.cls(h)
