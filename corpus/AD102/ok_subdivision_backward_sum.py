# expect-before: runs
# One optimizer step over several sub-batches: `_backward` backwards each
# sub-batch's loss (no step inside) and returns it; the sum is started again
# before every step. Each summed graph was freed by its backward and the sum is
# dropped at the next step, so nothing grows: not reported.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Trainer:
    def __init__(self, net, subdivisions=3):
        self.net = net
        self.subdivisions = subdivisions
        self.opt = torch.optim.SGD(net.parameters(), lr=0.05)

    def _backward(self, loss):
        loss = loss / self.subdivisions
        loss.backward()
        return loss

    def train(self, iterations):
        for _ in range(iterations):
            self.opt.zero_grad()
            loss = 0
            for i in range(self.subdivisions):
                x = torch.randn(8, 5)
                loss += self._backward(self.net(x).pow(2).mean())
            self.opt.step()
            print(f"loss {loss.item():.6f}")


trainer = Trainer(nn.Sequential(nn.Linear(5, 12), nn.Tanh(), nn.Linear(12, 1)))
trainer.train(ITERS)
print(f"checksum {sum(p.sum().item() for p in trainer.net.parameters()):.6f}")
