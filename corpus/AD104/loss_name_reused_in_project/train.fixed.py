# expect-before: runs
# autodetach-test: unsafe
# A conditional GAN wrapper: `_setup_loss()` binds its local `loss` to a loss
# object of gan_losses.py, and `optimize_generator()` binds its own local
# `loss` to a tensor: a fresh generator forward, one backward, a step and
# `loss.item()` returned. Nothing walks that graph again, so
# retain_graph=True only keeps it alive until the next call. The same name
# in another function is another variable. Unsafe: that the caller, who
# hands in `noise` and `labels`, backwards nothing through them is inferred.
import os

import torch
from torch import nn

import gan_losses

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 1)
        self.embed = nn.Embedding(3, 1)

    def forward(self, x, labels):
        return self.body(x) + self.embed(labels)


class ConditionalGAN:
    def __init__(self, kind="wgan"):
        self.gen = nn.Sequential(nn.Linear(4, 6), nn.Tanh())
        self.dis = Critic()
        self.gen_optim = torch.optim.Adam(self.gen.parameters(), lr=1e-3)
        self.criterion = self._setup_loss(kind)

    def _setup_loss(self, kind):
        if kind == "wgan":
            loss = gan_losses.WassersteinLoss(self.dis)
        else:
            loss = gan_losses.HingeLoss(self.dis)
        return loss

    def optimize_generator(self, noise, labels):
        fake = self.gen(noise)
        loss = self.criterion.gen_loss(fake, labels)
        self.gen_optim.zero_grad()
        loss.backward()
        self.gen_optim.step()
        return loss.item()


torch.manual_seed(0)
gan = ConditionalGAN()
for step in range(ITERS):
    print(step, round(gan.optimize_generator(torch.randn(8, 4), torch.randint(0, 3, (8,))), 6))
print("checksum", round(sum(p.sum().item() for p in gan.gen.parameters()), 6))
