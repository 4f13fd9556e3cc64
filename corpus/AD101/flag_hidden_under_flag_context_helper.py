# expect-before: error Trying to backward through the graph a second time
# A controller trained by REINFORCE: the reward comes from a shared recurrent
# model whose hidden state is carried from step to step. The shared forward
# runs under a module function that picks its context by a flag, not by the
# torch version: with the flag off it is a no-op, the hidden state keeps the
# shared model's graph, and the second backward walks into the first step's
# freed graph. No fix: the call's result is unpacked, most often a tuple, and
# `.detach()` of a tuple raises.
import contextlib
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


FREEZE_SHARED = False


def _shared_context():
    if FREEZE_SHARED:
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
            with _shared_context():
                rewards, hidden = self.get_reward(x, hidden)
            loss = -(log_probs * rewards).sum()
            self.controller_optim.zero_grad()
            loss.backward()
            self.controller_optim.step()
            print(step, round(loss.item(), 4))


if __name__ == "__main__":
    Trainer().train_controller()
