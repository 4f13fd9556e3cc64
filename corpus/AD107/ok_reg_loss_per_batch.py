# expect-before: runs
# The same model computes its L2 penalty inside the loop, through the same
# helper: each batch gets a fresh graph, so nothing is reported.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Model(nn.Module):
    def __init__(self, l2=1e-2):
        super().__init__()
        self.linear = nn.Linear(4, 1)
        self.l2 = l2

    def add_regularization_loss(self, weight_list, weight_decay):
        reg_loss = torch.zeros((1,))
        for w in weight_list:
            reg_loss = reg_loss + torch.norm(w, p=2)
        self.reg_loss = self.reg_loss + weight_decay * reg_loss

    def forward(self, x):
        return self.linear(x)

    def fit(self, batches):
        optim = torch.optim.SGD(self.parameters(), lr=0.1)
        for i, (x, y) in enumerate(batches):
            loss = torch.mean((self(x) - y) ** 2)
            self.reg_loss = torch.zeros((1,))
            self.add_regularization_loss(self.linear.parameters(), self.l2)
            total_loss = loss + self.reg_loss
            optim.zero_grad()
            total_loss.backward()
            optim.step()
            print(f"{i} loss {total_loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    Model().fit([(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(ITERS)])
