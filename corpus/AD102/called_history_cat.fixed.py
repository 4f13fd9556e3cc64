# expect-before: grows
# autodetach-test: unsafe
# A callable prediction log: `log(probs)` joins what it is given onto
# `self.seen` with torch.cat, to draw a calibration plot after training. The
# trainer hands it the batch's probabilities with their graph, so `self.seen`
# hangs from every batch's forward (and the activations it saved) for the
# whole run. What `__call__` keeps is inferred from its code and the log's later
# uses are not followed, so the fix, handing it `.detach()`, is unsafe.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class PredictionLog:
    def __init__(self, classes):
        self.seen = torch.zeros(0, classes)

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
        log(logits.softmax(dim=1).detach())
        print(f"{it} loss {loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 4))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    data = [(torch.randn(16, 10), torch.randint(0, 4, (16,))) for _ in range(ITERS)]
    predictions = PredictionLog(4)
    train(net, opt, data, predictions)
    print(f"confidence {predictions.confidence():.6f}")
