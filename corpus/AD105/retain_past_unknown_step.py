# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A learner is handed an `updater` whose class this file does not show (here
# a plain SGD over the head, built by a factory elsewhere in real code). The
# encoder's output feeds two losses: the first backward frees the shared
# graph, the second needs it. Retaining the first graph fixes it, but only if
# the updater's step between the backwards leaves alone the weights that
# graph saved; which parameters the updater steps is not known here, so the
# retain is offered as unsafe (--verify runs it).
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Learner:
    def __init__(self, enc, head, updater):
        self.enc = enc
        self.head = head
        self.updater = updater

    def learn(self, x):
        z = self.enc(x).tanh()
        loss_a = self.head(z).pow(2).mean()
        loss_a.backward()
        self.updater.step()
        loss_b = z.pow(2).mean()
        loss_b.backward()
        return loss_a.item() + loss_b.item()


def build_updater(module):
    return torch.optim.SGD(module.parameters(), lr=0.1)


enc, head = nn.Linear(4, 4), nn.Linear(4, 1)
learner = Learner(enc, head, build_updater(head))
enc_opt = torch.optim.SGD(enc.parameters(), lr=0.1)
for step in range(ITERS):
    enc_opt.zero_grad()
    learner.updater.zero_grad()
    total = learner.learn(torch.randn(8, 4))
    enc_opt.step()
print("ITERS", ITERS, f"{total:.6f}", f"{enc.weight.sum().item():.6f}", f"{head.weight.sum().item():.6f}")
