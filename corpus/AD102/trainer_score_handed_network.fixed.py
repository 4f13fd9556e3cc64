# expect-before: runs
# autodetach-test: unsafe
# `Trainer.score` runs whatever `network` it is handed on each batch and sums
# the losses; it calls no module method on it. Its only call, in `fit`, hands
# it `self.model` (a module: its parameters are optimized) with gradients on
# and prints the result, so each batch's graph is kept in `running` until the
# method returns. That `network` is a network is inferred from its caller
# (the fix is unsafe).
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self, model, lr):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=lr)
        self.crit = nn.L1Loss()

    def score(self, network, batches):
        running = 0.0
        for x, y in batches:
            running += self.crit(network(x), y).detach()
        return running / len(batches)

    def fit(self, data, val, epochs):
        for epoch in range(epochs):
            for x, y in data:
                self.opt.zero_grad()
                self.crit(self.model(x), y).backward()
                self.opt.step()
            print(f"epoch {epoch} score {float(self.score(self.model, val)):.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2)), 0.1)
    data = [(torch.randn(6, 3), torch.randn(6, 2)) for _ in range(ITERS)]
    val = [(torch.randn(6, 3), torch.randn(6, 2)) for _ in range(ITERS)]
    trainer.fit(data, val, 2)
    print(f"checksum {sum(p.sum().item() for p in trainer.model.parameters()):.6f}")
