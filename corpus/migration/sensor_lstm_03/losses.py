import torch.nn as nn


class SmoothForecastLoss(nn.Module):
    """MSE plus a penalty on jumps between consecutive predictions. Keeps
    its last value as a number for logging."""

    def __init__(self, smooth=0.1):
        super(SmoothForecastLoss, self).__init__()
        self.smooth = smooth
        self.mse = nn.MSELoss(size_average=True)
        self.last = 0.0

    def forward(self, pred, target):
        loss = self.mse(pred, target)
        if pred.size(0) > 1:
            jumps = pred[1:] - pred[:-1]
            loss = loss + self.smooth * jumps.pow(2).mean()
        self.last = loss.data[0]
        return loss
