# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A WGAN-GP trainer that switches the generator off before its loop, but whose
# generator method switches it on and never off again: from the second batch
# on, the discriminator method's fake batch carries G's graph, which D's
# backward frees and the gradient penalty (on a mix of real and fake) needs
# again. Whether G is on when the method runs depends on the order of calls,
# so the retain is offered as unsafe.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class GanTrainer:
    def __init__(self):
        self.netG = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 6))
        self.netD = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1))
        self.opt_gen = torch.optim.Adam(self.netG.parameters(), lr=1e-3)
        self.opt_dis = torch.optim.Adam(self.netD.parameters(), lr=1e-3)
        self.log = []

    def fit(self, batches):
        self.netG.requires_grad_(False)
        for real in batches:
            self._generator_step(real.shape[0])
            self._discriminator_step(real)

    def _generator_step(self, n):
        self.netG.requires_grad_(True)
        fake = self.netG(torch.randn(n, 4))
        loss_gen = -self.netD(fake).mean()
        loss_gen.backward()
        self.opt_gen.step()
        self.opt_gen.zero_grad()

    def _discriminator_step(self, real, gamma=10.0):
        fake = self.netG(torch.randn(real.shape[0], 4))
        loss_disc = self.netD(fake).mean() - self.netD(real).mean()
        loss_disc.backward()
        self.opt_dis.step()
        self.opt_dis.zero_grad()
        alpha = torch.rand(real.shape[0], 1)
        mixed = torch.lerp(real, fake, alpha).requires_grad_(True)
        scores = self.netD(mixed)
        grad = torch.autograd.grad(scores.sum(), mixed, create_graph=True)[0]
        penalty = gamma * ((grad.norm(2, dim=1) - 1) ** 2).mean()
        penalty.backward()
        self.opt_dis.step()
        self.opt_dis.zero_grad()
        self.log.append(loss_disc.item() + penalty.item())


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = GanTrainer()
    trainer.fit([torch.randn(8, 6) for _ in range(ITERS)])
    print(f"d {sum(trainer.log):.6f}")
    print(f"checksum {sum(p.sum().item() for p in trainer.netG.parameters()):.6f}")
