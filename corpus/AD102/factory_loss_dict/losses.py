"""The project's loss object, built by a factory (imported by train.py)."""
import torch.nn.functional as F


class WeightedLoss:
    def __init__(self, weights):
        self.weights = weights

    def __call__(self, out, y):
        parts = {"mse": self.weights["mse"] * F.mse_loss(out, y),
                 "l1": self.weights["l1"] * F.l1_loss(out, y)}
        return sum(parts.values()), parts


def build_loss(weights):
    return WeightedLoss(weights)
