import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU())

    def forward(self, x):
        return self.body(x)


def head(out_dim):
    return nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, out_dim))
