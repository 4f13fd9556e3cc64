# expect-before: runs
# The callable prediction log done right: `__call__` runs under
# `torch.no_grad()`, so the probabilities it joins onto `self.seen` carry
# no graph, whatever the trainer hands it.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class PredictionLog:
    def __init__(self, classes):
        self.seen = torch.zeros(0, classes)

    @torch.no_grad()
    def __call__(self, probs):
        self.seen = torch.cat([self.seen, probs])

    def confidence(self):
        return self.seen.detach().max(dim=1).values.mean().item()


def train(model, optimizer, batches, log):
    criterion = nn.CrossEntropyLoss()
    for it, (x, y) in enumerate(batches):
        logits = model(x)
        loss = criterion(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        log(logits.softmax(dim=1))
        print(f"{it} loss {loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 4))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    data = [(torch.randn(16, 10), torch.randint(0, 4, (16,))) for _ in range(ITERS)]
    predictions = PredictionLog(4)
    train(net, opt, data, predictions)
    print(f"confidence {predictions.confidence():.6f}")
