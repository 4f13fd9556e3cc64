"""The project's classifier (imported by train.py): its forward returns the
logits with what it worked out on the side."""
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 16), nn.Tanh())
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        logits = self.head(self.body(x))
        _, top2 = logits.topk(2, 1)
        n = x.shape[0]
        norms = [row.norm().item() for row in x]
        return logits, top2, n, norms
