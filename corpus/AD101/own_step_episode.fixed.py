# expect-before: grows
# autodetach-test: unsafe
# `Runner.episode` feeds `hidden` back through `self.step(obs, hidden)`, a
# method of the same object that runs the recurrent network `self.net` on the
# state it is given and hands back a number (the action) and the new state.
# The script calls `runner.episode(...)` with gradients on, so each step's
# state hangs from every earlier step's graph; the online update inside the
# loop trains on fresh forwards that never read the chain, so nothing ever
# backwards it and every step's graph stays alive for the whole episode. That
# `self.net` has parameters that require grad is inferred (it is built from a
# class), so the fix (the step under no_grad) is unsafe.
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
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.01)

    def step(self, obs, hidden):
        scores, new_hidden = self.net(obs, hidden)
        return scores.argmax().item(), new_hidden

    def learn(self, obs):
        scores, _ = self.net(obs, torch.zeros(obs.shape[0], 16))
        loss = scores.pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()

    def episode(self, n):
        hidden = torch.zeros(1, 16)
        obs = torch.randn(1, 4)
        total, loss = 0, 0.0
        for t in range(n):
            with torch.no_grad():
                action, hidden = self.step(obs, hidden)
            obs = torch.randn(1, 4) + 0.1 * action
            total += action
            loss = self.learn(torch.randn(8, 4))
        return total, loss


runner = Runner()
total, loss = runner.episode(ITERS)
print(f"total {total} loss {loss:.6f}")
