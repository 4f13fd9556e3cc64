"""The project's loss: the total, and its parts for logging."""
import torch.nn.functional as F


def total_loss(pred, target, model):
    mse = F.mse_loss(pred, target)
    reg = sum(p.pow(2).sum() for p in model.parameters()) * 1e-4
    return mse + reg, mse, reg
