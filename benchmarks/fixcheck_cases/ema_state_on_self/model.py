import torch
import torch.nn as nn


class ContextNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.feat = nn.Linear(8, 4)
        self.out = nn.Linear(4, 1)
        self.context = torch.zeros(4)

    def forward(self, x):
        f = self.feat(x)
        self.context = 0.9 * self.context + 0.1 * f.mean(0)
        return self.out(f + self.context)
