# expect-before: runs
# `Learner.unroll` threads `hidden` through `self.step(obs, hidden)` with
# gradients on, and the chain is the very graph the loss needs: the step's
# scores are summed into the episode's loss, which is backwarded once at the
# end of the (short) episode, through every step (backpropagation through
# time). Nothing is kept past the episode, and cutting the state would change
# the gradient.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class CellNet(nn.Module):
    def __init__(self, n_in, n_hidden, n_out):
        super().__init__()
        self.cell = nn.GRUCell(n_in, n_hidden)
        self.head = nn.Linear(n_hidden, n_out)

    def forward(self, x, h):
        h = self.cell(x, h)
        return self.head(h), h


class Learner:
    def __init__(self):
        self.net = CellNet(4, 16, 3)
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.01)

    def step(self, obs, hidden):
        scores, new_hidden = self.net(obs, hidden)
        return scores, new_hidden

    def unroll(self, seq):
        hidden = torch.zeros(1, 16)
        loss = 0.0
        for t in range(seq.shape[0]):
            scores, hidden = self.step(seq[t], hidden)
            loss = loss + scores.pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


learner = Learner()
for it in range(ITERS):
    value = learner.unroll(torch.randn(6, 1, 4))
print(f"loss {value:.6f}")
