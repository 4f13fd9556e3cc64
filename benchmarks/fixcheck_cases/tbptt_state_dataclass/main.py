# Truncated BPTT with the LSTM state kept in a dataclass on the trainer and
# fed to the next batch without a detach: the second backward reaches the
# first batch's freed graph. The fix is to detach h and c where the state is
# stored. (The retain_graph reference trips on the optimizer's in-place
# update: no reference.)
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class State:
    h: torch.Tensor
    c: torch.Tensor


class Trainer:
    def __init__(self):
        self.rnn = nn.LSTM(4, 8, batch_first=True)
        self.out = nn.Linear(8, 4)
        self.opt = torch.optim.SGD(list(self.rnn.parameters()) + list(self.out.parameters()), lr=0.1)
        self.state = State(torch.zeros(1, 2, 8), torch.zeros(1, 2, 8))

    def step(self, x, y):
        y_hat, (h, c) = self.rnn(x, (self.state.h, self.state.c))
        self.state = State(h, c)
        loss = F.mse_loss(self.out(y_hat), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()


def main():
    torch.manual_seed(0)
    t = Trainer()
    stream = torch.randn(2, 30, 4)
    for i in range(0, 25, 5):
        print(t.step(stream[:, i:i + 5], stream[:, i + 1:i + 6]))


if __name__ == "__main__":
    main()
