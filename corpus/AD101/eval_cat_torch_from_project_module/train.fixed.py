# expect-before: runs
# autodetach-test: unsafe
# A runner class trains a model and, after each epoch, runs `evaluate` over
# the validation batches with gradients on (no `torch.no_grad()`, and
# `model.eval()` turns none off). Each batch's prediction is folded into a
# running tensor with `torch.cat`, so every batch's graph stays alive until
# the pass ends; nothing backwards the predictions. torch is imported through
# the project's `common` module (`from common import torch, nn`), which
# imports it. The fix (detach the running tensor) is unsafe: that `evaluate`
# runs with gradients on is inferred from the calls this file shows.
import os

from common import nn, torch

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Runner:
    def __init__(self, model, batches):
        self.model = model
        self.batches = batches
        self.optim = torch.optim.SGD(model.parameters(), lr=0.05)
        self.criterion = nn.MSELoss()

    def train(self):
        self.model.train()
        total = 0.0
        for x, y in self.batches:
            self.optim.zero_grad()
            loss = self.criterion(self.model(x), y)
            loss.backward()
            self.optim.step()
            total += loss.item()
        return total / len(self.batches)

    def evaluate(self):
        self.model.eval()
        predict, truth = None, None
        for x, y in self.batches:
            output = self.model(x)
            if predict is None:
                predict, truth = output, y
            else:
                predict = torch.cat((predict, output)).detach()
                truth = torch.cat((truth, y))
        return ((predict - truth) ** 2).mean().item()

    def run(self, epochs):
        for _ in range(epochs):
            train_loss = self.train()
            val_mse = self.evaluate()
            print(f"{train_loss:.6f} {val_mse:.6f}")


batches = [(torch.randn(6, 4), torch.randn(6, 2)) for _ in range(3)]
runner = Runner(nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2)), batches)
runner.run(ITERS)
