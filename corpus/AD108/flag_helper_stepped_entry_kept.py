# expect-before: error modified by an inplace operation
# An adversarial trainer's helper trains the discriminator itself, but builds
# the generator's term `term` from the discriminator before its step. The
# caller keeps the term and `disc_loss` side by side (a dict literal, a tuple,
# or a dict filled key by key) and backwards the generator's entry, whose graph
# saved the discriminator's weights that `self.opt_d.step()` changed. The
# order of the helper must change, so the finding has no fix.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class AdversarialTrainer:
    def __init__(self, gen, disc, opt_g, opt_d):
        self.gen, self.disc = gen, disc
        self.opt_g, self.opt_d = opt_g, opt_d

    def adversarial(self, fake, real):
        disc_loss = self.disc(fake.detach()).mean() - self.disc(real).mean()
        term = -self.disc(fake).mean()
        self.opt_d.zero_grad()
        disc_loss.backward()
        self.opt_d.step()
        return term, disc_loss

    def step_dict(self, x, real):
        fake = self.gen(x)
        term, disc_loss = self.adversarial(fake, real)
        losses = {"total": term + fake.pow(2).mean(), "disc": disc_loss}
        self.opt_g.zero_grad()
        losses["total"].backward()
        self.opt_g.step()
        return {k: v.item() for k, v in losses.items()}

    def step_tuple(self, x, real):
        fake = self.gen(x)
        term, disc_loss = self.adversarial(fake, real)
        losses = (term + fake.pow(2).mean(), disc_loss)
        self.opt_g.zero_grad()
        losses[0].backward()
        self.opt_g.step()
        return [v.item() for v in losses]

    def step_items(self, x, real):
        fake = self.gen(x)
        term, disc_loss = self.adversarial(fake, real)
        losses = {}
        losses["total"] = term + fake.pow(2).mean()
        losses["disc"] = disc_loss
        self.opt_g.zero_grad()
        losses["total"].backward()
        self.opt_g.step()
        return {k: v.item() for k, v in losses.items()}


if __name__ == "__main__":
    torch.manual_seed(0)
    gen, disc = nn.Linear(4, 4), nn.Linear(4, 1)
    opt_g = torch.optim.SGD(gen.parameters(), lr=0.05)
    opt_d = torch.optim.SGD(disc.parameters(), lr=0.05)
    trainer = AdversarialTrainer(gen, disc, opt_g, opt_d)
    log = []
    for i in range(ITERS):
        x, real = torch.randn(8, 4), torch.randn(8, 4)
        log.append(trainer.step_dict(x, real)["total"])
        log.append(trainer.step_tuple(x, real)[0])
        log.append(trainer.step_items(x, real)["total"])
    print(" ".join(f"{v:.6f}" for v in log))
