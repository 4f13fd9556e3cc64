import torch
import torch.nn as nn


class ContrastiveLoss(nn.Module):
    def __init__(self, margin=0.5):
        super().__init__()
        self.margin = margin

    def forward(self, feats, labels):
        sim = feats @ feats.t()
        same = (labels[:, None] == labels[None, :]).float()
        pos = (1 - sim) * same
        neg = torch.relu(sim - self.margin) * (1 - same)
        loss = (pos.sum() + neg.sum()) / len(labels)
        prec = float((neg == 0).float().mean())
        return loss, prec, torch.mean(sim[same > 0]).item(), torch.mean(sim[same == 0]).item()


_factory = {"Contrastive": ContrastiveLoss}


def create(name, *args, **kwargs):
    return _factory[name](*args, **kwargs)
