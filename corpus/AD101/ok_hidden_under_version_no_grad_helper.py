# expect-before: runs
# A controller trained by REINFORCE: the reward comes from a shared recurrent
# model whose hidden state is carried from step to step. The shared forward
# runs under a module function that returns `torch.no_grad()` (or a no-op
# context on a torch too old to have it), so the hidden state carries no
# graph and keeping it across steps is right.
import contextlib
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def _grad_off_context():
    if float(torch.__version__.split(".")[0]) >= 1:
        return torch.no_grad()
    return contextlib.suppress()


class Trainer:
    def __init__(self):
        self.shared = nn.GRUCell(4, 4)
        self.controller = nn.Linear(4, 3)
        self.controller_optim = torch.optim.Adam(self.controller.parameters(), lr=0.01)

    def get_reward(self, x, hidden):
        hidden = self.shared(x, hidden)
        return hidden.pow(2).mean(dim=1), hidden

    def train_controller(self):
        hidden = torch.zeros(2, 4)
        for step in range(ITERS):
            x = torch.randn(2, 4)
            log_probs = torch.log_softmax(self.controller(x), dim=1)[:, 0]
            with _grad_off_context():
                rewards, hidden = self.get_reward(x, hidden)
            loss = -(log_probs * rewards).sum()
            self.controller_optim.zero_grad()
            loss.backward()
            self.controller_optim.step()
            print(step, round(loss.item(), 4))


if __name__ == "__main__":
    Trainer().train_controller()
