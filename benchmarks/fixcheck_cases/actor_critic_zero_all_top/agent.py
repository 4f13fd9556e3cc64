import torch.nn as nn


class SharedAC(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 16), nn.Tanh())
        self.pi = nn.Linear(16, 3)
        self.v = nn.Linear(16, 1)
