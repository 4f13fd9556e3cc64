import torch.nn as nn


class Criterion(nn.Module):
    """Named loss terms, each weighted, as a dict."""

    def __init__(self, weights):
        super().__init__()
        self.weights = weights
        self.mse = nn.MSELoss()
        self.l1 = nn.L1Loss()

    def forward(self, out, y):
        losses = {"mse": self.mse(out, y), "l1": self.l1(out, y)}
        return {k: v * self.weights[k] for k, v in losses.items()}
