import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 12), nn.Tanh(), nn.Linear(12, 1))
        self.opt = torch.optim.SGD(self.parameters(), lr=0.05)

    def forward(self, x):
        return self.body(x)

    def fit_batch(self, x, y):
        self.opt.zero_grad()
        pred = self(x)
        err = (pred - y).pow(2).mean()
        err.backward()
        self.opt.step()
        return err, pred.argmax(1)
