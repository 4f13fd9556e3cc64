"""A model whose training step returns its loss and a tensor of per-sample errors for logging."""
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(3, 1)

    def train_step(self, batch):
        x, y = batch
        err = (self.net(x) - y).abs()
        return err.pow(2).mean(), err.sigmoid().mean()
