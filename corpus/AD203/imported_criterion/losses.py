import torch.nn as nn


class SmoothL1Sum(nn.Module):
    """A project loss module: the mean of a smooth L1 over a batch (0-dim)."""

    def forward(self, pred, target):
        diff = (pred - target).abs()
        return (diff.clamp(max=1.0) ** 2 / 2 + (diff - 1.0).clamp(min=0.0)).mean()
