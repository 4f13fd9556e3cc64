# expect-before: runs
# A trainer logs its losses by name: the names come from the keys of the
# losses dict (`for name, value in losses.items()`) and are strings; only the
# values carry the step's graph, and those are kept as numbers.
import os
from collections import defaultdict

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.names = []
        self.history = defaultdict(list)

    def step(self, x, y):
        out = self.model(x)
        losses = {"mse": (out - y).pow(2).mean(), "l1": (out - y).abs().mean()}
        total = sum(losses.values())
        self.optimizer.zero_grad()
        total.backward()
        self.optimizer.step()
        for name, value in losses.items():
            if name not in self.names:
                self.names.append(name)
            self.history[name].append(value.item())


def main():
    model = nn.Linear(4, 2)
    trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1))
    for _ in range(ITERS):
        trainer.step(torch.randn(8, 4), torch.randn(8, 2))
    print(trainer.names, f"{trainer.history['mse'][-1]:.6f}", f"{model.weight.sum().item():.6f}", ITERS)


if __name__ == "__main__":
    main()
