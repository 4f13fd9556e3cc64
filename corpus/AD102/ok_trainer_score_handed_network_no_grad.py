# expect-before: runs
# `Trainer.score` sums the losses of the network it is handed, but its one
# call runs under torch.no_grad(): no graph is built, so nothing is kept.
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
            running += self.crit(network(x), y)
        return running / len(batches)

    def fit(self, data, val, epochs):
        for epoch in range(epochs):
            for x, y in data:
                self.opt.zero_grad()
                self.crit(self.model(x), y).backward()
                self.opt.step()
            with torch.no_grad():
                print(f"epoch {epoch} score {float(self.score(self.model, val)):.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2)), 0.1)
    data = [(torch.randn(6, 3), torch.randn(6, 2)) for _ in range(ITERS)]
    val = [(torch.randn(6, 3), torch.randn(6, 2)) for _ in range(ITERS)]
    trainer.fit(data, val, 2)
    print(f"checksum {sum(p.sum().item() for p in trainer.model.parameters()):.6f}")
