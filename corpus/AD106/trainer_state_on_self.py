# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A trainer class keeps the recurrent state on `self`: `train_step` stores
# `self.hidden` and the next call feeds it back. The loop is in the caller, so
# that the method runs once per iteration is inferred (the fix is unsafe).
# The backward runs in a helper method.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self, model, lr=0.5):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=lr)
        self.crit = nn.MSELoss()
        self.hidden = None

    def backward_step(self, loss):
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()

    def train_step(self, x, y):
        out, self.hidden = self.model(x, self.hidden)
        loss = self.crit(out, y)
        self.backward_step(loss)
        return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(nn.GRU(6, 6))
    for it in range(ITERS):
        x, y = torch.randn(5, 3, 6), torch.randn(5, 3, 6)
        print(f"{it} loss {trainer.train_step(x, y):.6f}")
    print(f"checksum {sum(p.sum().item() for p in trainer.model.parameters()):.6f}")
