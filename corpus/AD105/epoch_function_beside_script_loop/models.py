"""The two models of train.py: each a trunk shared by a box head and a class head."""
import torch
import torch.nn as nn


class BoxNet(nn.Module):
    def __init__(self, width=8, classes=3):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(width, 12), nn.Tanh())
        self.box = nn.Linear(12, 4)
        self.cls = nn.Linear(12, classes)

    def forward(self, x):
        h = self.body(x)
        return self.box(h), self.cls(h)


class SmallNet(nn.Module):
    def __init__(self, width=8, classes=3):
        super().__init__()
        self.body = nn.Linear(width, 6)
        self.box = nn.Linear(6, 4)
        self.cls = nn.Linear(6, classes)

    def forward(self, x):
        h = torch.relu(self.body(x))
        return self.box(h), self.cls(h)
