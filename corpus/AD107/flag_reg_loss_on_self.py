# expect-before: error modified by an inplace operation
# A model adds an L2 penalty on its weights once, in __init__, through a
# helper that keeps it on `self.reg_loss`; `fit` adds it to every batch's
# loss. retain_graph=True silenced "backward through the graph a second
# time", but the penalty's graph saved the weights that optimizer.step()
# then changes in place. That the helper's arguments are trainable weights
# is inferred (from the retained graph); no statement can be moved into the
# loop, so it is reported without a fix.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Model(nn.Module):
    def __init__(self, l2=1e-2):
        super().__init__()
        self.linear = nn.Linear(4, 1)
        self.reg_loss = torch.zeros((1,))
        self.add_regularization_loss(self.linear.parameters(), l2)

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
            total_loss = loss + self.reg_loss
            optim.zero_grad()
            total_loss.backward(retain_graph=True)
            optim.step()
            print(f"{i} loss {total_loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    Model().fit([(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(ITERS)])
