import torch.nn as nn


class SmoothForecastLoss(nn.Module):
    def __init__(self, smooth=0.1):
        super().__init__()
        self.smooth = smooth
        self.mse = nn.MSELoss()
        self.last = 0.0

    def forward(self, pred, target):
        loss = self.mse(pred, target)
        if pred.size(0) > 1:
            loss = loss + self.smooth * (pred[1:] - pred[:-1]).pow(2).mean()
        self.last = loss.item()
        return loss
