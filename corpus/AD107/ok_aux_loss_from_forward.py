# expect-before: runs
# An auxiliary loss is stored on `self` by a helper that forward calls, so
# each batch's forward stores a fresh one before `fit` adds it to the loss.
# The helper only stores what it is passed: nothing is reported.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Model(nn.Module):
    def __init__(self, alpha=0.1):
        super().__init__()
        self.linear = nn.Linear(4, 1)
        self.alpha = alpha
        self.aux_loss = torch.zeros((1,))

    def add_auxiliary_loss(self, aux_loss, alpha):
        self.aux_loss = aux_loss * alpha

    def forward(self, x):
        out = self.linear(x)
        self.add_auxiliary_loss(out.pow(2).mean(), self.alpha)
        return out

    def fit(self, batches):
        optim = torch.optim.SGD(self.parameters(), lr=0.1)
        for i, (x, y) in enumerate(batches):
            loss = torch.mean((self(x) - y) ** 2)
            total_loss = loss + self.aux_loss
            optim.zero_grad()
            total_loss.backward()
            optim.step()
            print(f"{i} loss {total_loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    Model().fit([(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(ITERS)])
