"""Soft segmentation scores: computed on the probabilities, they keep their graph."""
import torch


def soft_dice(out, target, eps=1e-6):
    inter = torch.sum(out * target)
    return 2 * inter / (torch.sum(out) + torch.sum(target) + eps)


def soft_iou(out, target, eps=1e-6):
    dice = soft_dice(out, target, eps)
    return dice / (2 - dice)
