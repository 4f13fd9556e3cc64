import torch.nn as nn

from losses import LossWithParts


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))

    def compute_loss(self, batch):
        x, y = batch
        out = self.net(x)
        return LossWithParts(mse=(out - y).pow(2).mean(), l1=0.1 * (out - y).abs().mean())


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.regressor = Regressor()
