# expect-before: runs
# The same trainer, whose loop calls the discriminator step with
# `retain_graph=True`: G's part of the graph survives D's backward, and G's
# loss walks it once more. The retain silences the error, but D's backward
# still runs through G for gradients `opt_g.zero_grad()` clears before G's
# backward: `fake.detach()` in D's step gives the same updates without it.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Trainer:
    def __init__(self):
        self.G = nn.Linear(4, 4)
        self.D = nn.Linear(4, 1)
        self.opt_g = torch.optim.Adam(self.G.parameters(), lr=0.01)
        self.opt_d = torch.optim.Adam(self.D.parameters(), lr=0.01)

    def d_step(self, real, fake, retain_graph=False):
        self.opt_d.zero_grad()
        d_loss = self.D(fake.detach()).mean() - self.D(real).mean()
        d_loss.backward(retain_graph=retain_graph)
        self.opt_d.step()
        return d_loss.item()

    def g_step(self, fake):
        self.opt_g.zero_grad()
        g_loss = -self.D(fake).mean()
        g_loss.backward()
        self.opt_g.step()
        return g_loss.item()

    def fit(self, batches):
        for real in batches:
            fake = self.G(torch.randn(real.size(0), 4))
            d = self.d_step(real, fake, retain_graph=True)
            g = self.g_step(fake)
            print(round(d, 4), round(g, 4))


trainer = Trainer()
trainer.fit([torch.randn(8, 4) for _ in range(ITERS)])
print("ITERS", ITERS, f"{trainer.G.weight.sum().item():.6f}")
