"""The project's own losses (imported by train.py)."""
import torch


def multi_hinge(scores, y, margin=1.0):
    right = scores.gather(1, y[:, None])
    return torch.clamp(margin - right + scores, min=0).mean()
