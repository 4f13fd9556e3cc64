# expect-before: runs
# The same wrapper whose generator step needs its retain: after the
# adversarial loss, a feature-matching term walks the generator's graph
# again (`fake` is shared), so the first backward must keep it. That the
# local `loss` of `_setup_loss()` is a loss object must not make this
# function's `loss` an object too: nothing to report.
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
        loss.backward(retain_graph=True)
        match = (fake.mean(0) - 0.5).pow(2).sum()
        match.backward()
        self.gen_optim.step()
        return loss.item()


torch.manual_seed(0)
gan = ConditionalGAN()
for step in range(ITERS):
    print(step, round(gan.optimize_generator(torch.randn(8, 4), torch.randint(0, 3, (8,))), 6))
print("checksum", round(sum(p.sum().item() for p in gan.gen.parameters()), 6))
