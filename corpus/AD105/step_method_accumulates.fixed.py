# expect-before: error Trying to backward through the graph a second time
# A training step method (its caller's loop runs it once per batch) with two
# optimizers: G's backward first, and G steps and zeroes only every second
# call (gradient accumulation); the D loss then reuses fake. What the D
# backward puts into G is not zeroed before G's next step, in the next call:
# it is accumulated with G's own gradients. D(fake.detach()) would change G;
# the fix is retain_graph=True on the G backward. (G is one layer on the
# noise: its step does not change what the kept graph saved.)
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class GANStep:
    def __init__(self):
        self.G = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
        self.D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
        self.opt_g = torch.optim.Adam(self.G.parameters(), lr=1e-3)
        self.opt_d = torch.optim.Adam(self.D.parameters(), lr=1e-3)

    def train_step(self, real, i):
        fake = self.G(torch.randn(real.size(0), 4))
        g_loss = F.softplus(-self.D(fake)).mean()
        g_loss.backward(retain_graph=True)
        if i % 2 == 1:
            self.opt_g.step()
            self.opt_g.zero_grad()
        self.opt_d.zero_grad()
        d_loss = F.softplus(-self.D(real)).mean() + F.softplus(self.D(fake)).mean()
        d_loss.backward()
        self.opt_d.step()
        return d_loss.item(), g_loss.item()


gan = GANStep()
for it in range(ITERS):
    d, g = gan.train_step(torch.randn(16, 8), it)
    print(f"{it} d {d:.6f} g {g:.6f}")

print(f"checksum {sum(p.sum().item() for p in gan.G.parameters()):.6f} "
      f"{sum(p.sum().item() for p in gan.D.parameters()):.6f}")
