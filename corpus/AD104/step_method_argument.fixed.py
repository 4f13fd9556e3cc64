# expect-before: runs
# autodetach-test: unsafe
# A trainer's step method takes the batch as arguments and backwards with
# retain_graph=True "just in case". Nothing walks this graph again, but the
# loss reads the method's arguments, whose graph (if any) is the caller's:
# that no caller backwards through them again is inferred, so the fix is
# offered as unsafe.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Trainer:
    def __init__(self, net, lr=0.05):
        self.net = net
        self.criterion = nn.MSELoss()
        self.optimizer = torch.optim.SGD(net.parameters(), lr=lr)

    def train_step(self, x, y):
        loss = self.criterion(self.net(x), y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


trainer = Trainer(nn.Sequential(nn.Linear(5, 20), nn.ReLU(), nn.Linear(20, 1)))
for it in range(ITERS):
    x = torch.randn(32, 5)
    y = (x ** 2).sum(1, keepdim=True)
    print(f"{it} loss {trainer.train_step(x, y):.6f}")

print(f"checksum {sum(p.sum().item() for p in trainer.net.parameters()):.6f}")
