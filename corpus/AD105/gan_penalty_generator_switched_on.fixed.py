# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# WGAN-GP trainer class that switches the generator's gradients off before
# the training loop and after each generator step, but the EMA update of the
# shadow generator switches them back on before the critic step: `fake` then
# carries the generator's graph, the critic loss frees it, and the gradient
# penalty on the interpolation walks into it again. Whether the generator is
# switched off when the critic step runs depends on the order of the calls,
# which the analysis does not follow, so retain_graph=True is offered as an
# unsafe fix.
import copy
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self, dim=6, z_dim=4):
        self.z_dim = z_dim
        self.netG = nn.Sequential(nn.Linear(z_dim, 16), nn.ReLU(), nn.Linear(16, dim))
        self.netD = nn.Sequential(nn.Linear(dim, 16), nn.Tanh(), nn.Linear(16, 1))
        self.netG_shadow = copy.deepcopy(self.netG)
        self.opt_gen = torch.optim.Adam(self.netG.parameters(), lr=1e-3)
        self.opt_dis = torch.optim.Adam(self.netD.parameters(), lr=1e-3)

    def train(self, batches):
        self.netG.requires_grad_(False)
        for it, real in enumerate(batches):
            self._train_generator(real.size(0))
            self._update_average(0.9)
            self._train_critic(real)
            print(f"{it} d {self.loss_disc.item():.6f} g {self.loss_gen.item():.6f}")

    def _train_generator(self, n):
        self.netG.requires_grad_(True)
        self.loss_gen = -self.netD(self.netG(torch.randn(n, self.z_dim))).mean()
        self.loss_gen.backward()
        self.netG.requires_grad_(False)
        self.opt_gen.step()
        self.opt_gen.zero_grad(set_to_none=True)

    def _update_average(self, beta):
        self._set_grad_flag(self.netG, False)
        with torch.no_grad():
            for p_tgt, p_src in zip(self.netG_shadow.parameters(), self.netG.parameters()):
                p_tgt.copy_(beta * p_tgt + (1.0 - beta) * p_src)
        self._set_grad_flag(self.netG, True)

    def _set_grad_flag(self, module, flag):
        for p in module.parameters():
            p.requires_grad = flag

    def _train_critic(self, real, gamma=10.0):
        fake = self.netG(torch.randn(real.size(0), self.z_dim))
        self.loss_disc = self.netD(fake).mean() - self.netD(real).mean()
        self.loss_disc.backward(retain_graph=True)
        alpha = torch.rand(real.size(0), 1)
        mixed = torch.lerp(real, fake, alpha)
        if not mixed.requires_grad:
            mixed.requires_grad_(True)
        grad = torch.autograd.grad(self.netD(mixed).sum(), mixed, create_graph=True)[0]
        penalty = gamma * (grad.norm(2, dim=1) - 1).pow(2).mean()
        penalty.backward()
        self.opt_dis.step()
        self.opt_dis.zero_grad(set_to_none=True)


def main():
    torch.manual_seed(0)
    trainer = Trainer()
    trainer.train([torch.randn(8, 6) for _ in range(ITERS)])
    print(f"checksum {sum(p.sum().item() for p in trainer.netD.parameters()):.6f}")


if __name__ == "__main__":
    main()
