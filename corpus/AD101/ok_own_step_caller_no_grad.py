# expect-before: runs
# `Runner.episode` threads `hidden` through `self.step(obs, hidden)`, a method
# that runs the recurrent network of the object on it, and backwards nothing.
# Its only caller, `evaluate`, is decorated with `torch.no_grad()`: no step
# builds a graph, so there is no chain to keep.
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


class Runner:
    def __init__(self):
        self.net = CellNet(4, 16, 3)

    def step(self, obs, hidden):
        scores, new_hidden = self.net(obs, hidden)
        return scores.argmax().item(), new_hidden

    def episode(self, n):
        hidden = torch.zeros(1, 16)
        obs = torch.randn(1, 4)
        total = 0
        for t in range(n):
            action, hidden = self.step(obs, hidden)
            obs = torch.randn(1, 4) + 0.1 * action
            total += action
        return total


@torch.no_grad()
def evaluate(runner, episodes):
    return [runner.episode(5) for _ in range(episodes)]


runner = Runner()
totals = evaluate(runner, ITERS)
print(f"mean total {sum(totals) / len(totals):.6f}")
