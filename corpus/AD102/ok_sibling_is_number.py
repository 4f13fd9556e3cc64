# expect-before: runs
# sibling_of_backwarded, written correctly: `losses` hands out the mse as a
# Python number (`.item()`), so only the backwarded total carries a graph and
# `self.running_mse` sums plain numbers.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self, nets, lr):
        self.nets = nets
        self.optimizer = torch.optim.SGD(nets["main"].parameters(), lr=lr)
        self.running_mse = 0.0
        self.steps = 0

    def losses(self, x, y):
        out = self.nets["main"](x)
        mse = F.mse_loss(out, y)
        l1 = F.l1_loss(out, y)
        return mse + 0.5 * l1, mse.item(), l1.item()

    def train_step(self, batch):
        for key in batch:
            batch[key] = batch[key].float()
        loss, mse, l1 = self.losses(batch["x"], batch["y"])
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.running_mse += mse
        self.steps += 1


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer({"main": nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))}, 0.05)
    for _ in range(ITERS):
        trainer.train_step({"x": torch.randn(8, 6), "y": torch.randn(8, 2)})
    print(f"mean mse {float(trainer.running_mse) / trainer.steps:.6f}")
    print(f"checksum {sum(p.sum().item() for p in trainer.nets['main'].parameters()):.6f}")
