# expect-before: grows
# A learned-optimizer style learner: each call runs a few inner steps,
# backwards each step's loss (retaining, as the meta-training may), appends
# the loss to `self.losses`, a list made once in __init__ and never emptied,
# and applies the summed grads with one optimizer step. The list is
# returned, but it outlives the call: every call adds its graphs to those of
# all earlier calls. What the caller does with the returned list is inferred
# (not followed), so the fix is unsafe.
# autodetach-test: unsafe
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Learner:
    def __init__(self, net, optimizer, steps, retain=True):
        self.net = net
        self.optimizer = optimizer
        self.steps = steps
        self.retain = retain
        self.losses = []

    def __call__(self, x, y):
        self.optimizer.zero_grad()
        for i in range(self.steps):
            loss = nn.functional.mse_loss(self.net(x[i::self.steps]), y[i::self.steps])
            loss.backward(retain_graph=self.retain)
            self.losses.append(loss.detach())
        self.optimizer.step()
        return self.losses


net = nn.Sequential(nn.Linear(5, 10), nn.Tanh(), nn.Linear(10, 1))
learner = Learner(net, torch.optim.SGD(net.parameters(), lr=0.01), steps=3)
for it in range(ITERS):
    x, y = torch.randn(16, 5), torch.randn(16, 1)
    losses = learner(x, y)
    print(f"{it} last {losses[-1].item():.6f} kept {len(losses)}")

print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
