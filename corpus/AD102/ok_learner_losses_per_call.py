# expect-before: runs
# The same learner, but each call starts `self.losses` again: the list of
# this call's retained losses goes back to the caller, whose use of it decides
# (the caller may backward it), and no call keeps an earlier call's graphs.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Learner:
    def __init__(self, net, steps, retain=True):
        self.net = net
        self.steps = steps
        self.retain = retain
        self.losses = []

    def __call__(self, x, y):
        self.losses = []
        for i in range(self.steps):
            loss = nn.functional.mse_loss(self.net(x), y)
            loss.backward(retain_graph=self.retain)
            with torch.no_grad():
                for p in self.net.parameters():
                    p -= 0.01 * p.grad
                    p.grad = None
            self.losses.append(loss)
        return self.losses


net = nn.Sequential(nn.Linear(5, 10), nn.Tanh(), nn.Linear(10, 1))
learner = Learner(net, steps=3)
for it in range(ITERS):
    x, y = torch.randn(16, 5), torch.randn(16, 1)
    losses = learner(x, y)
    print(f"{it} last {losses[-1].item():.6f} kept {len(losses)}")

print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
