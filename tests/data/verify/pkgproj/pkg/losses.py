import torch.nn.functional as F


def criterion(out, y):
    return F.cross_entropy(out, y)
