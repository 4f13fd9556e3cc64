"""A recommender whose evaluation method averages numbers (`loss.item()`)."""
import numpy as np
import torch
import torch.nn as nn


class AutoRec(nn.Module):
    def __init__(self, n_items):
        super().__init__()
        self.encoder = nn.Linear(n_items, 8)
        self.decoder = nn.Linear(8, n_items)

    def forward(self, x):
        return self.decoder(torch.sigmoid(self.encoder(x)))

    def evaluate(self, batches, criterion):
        self.eval()
        losses = []
        for x in batches:
            output = self.forward(x)
            losses.append(criterion(output, x).item())
        self.train()
        return criterion.normalize(np.sum(losses), len(losses))


class ReconstructionLoss(nn.Module):
    def forward(self, output, target):
        return (output - target).pow(2).mean()

    def normalize(self, total, count):
        return float(total) / count
