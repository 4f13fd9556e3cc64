"""The project's trainer; the metric classes it is handed live in train.py."""
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

from train import Metric


class Trainer:
    def __init__(self, model, metric: Optional[Metric] = None):
        self.model = model
        self.metric = metric
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    def fit(self, batches):
        score = 0.0
        for x, y in batches:
            self.optimizer.zero_grad()
            y_pred = self.model(x)
            loss = F.binary_cross_entropy_with_logits(y_pred, y)
            loss.backward()
            self.optimizer.step()
            if self.metric is not None:
                score = self.metric(torch.sigmoid(y_pred), y)
                self.metric.reset()
        return score


def run(iters, metric):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
    batches = [(torch.randn(8, 6), torch.randint(0, 2, (8, 1)).float()) for _ in range(iters)]
    trainer = Trainer(model, metric)
    metric.reset()
    score = trainer.fit(batches)
    print(f"precision {score:.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
