# expect-before: runs
# autodetach-test: unsafe
# A trainer base class in the shape of GAN libraries: `fit` asks the
# subclass's `calculate_losses` for the losses of one network at a time,
# keeps them in `self._losses`, and every network's step goes through the
# helper `_backward`, which backwards with retain_graph=True "to be safe".
# Each call of `_backward` follows a new `self._losses`, built from this
# batch only (the critic's loss from a detached fake, the generator's from a
# new forward), so no backward reuses the retained graph: it stays alive on
# `self` until the next store. The subclasses that fill `self._losses` may
# live in other files, so that they share no graph between calls is
# inferred: the fix is unsafe.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self, nets, lr=1e-3):
        self.nets = nets
        self.optimizers = {name: torch.optim.Adam(net.parameters(), lr=lr) for name, net in nets.items()}
        self._losses = {}

    def calculate_losses(self, x, z, who):
        raise NotImplementedError

    def _zero_grad(self, who):
        self.optimizers[who].zero_grad()

    def _backward(self, who):
        self._losses[who].backward()

    def _step(self, who):
        self.optimizers[who].step()

    def fit(self, batches):
        for step, x in enumerate(batches):
            z = torch.randn(x.size(0), 4)
            for name in self.nets:
                self._losses = self.calculate_losses(x, z, who=name)
                self._zero_grad(who=name)
                self._backward(who=name)
                self._step(who=name)
            print(step, " ".join(f"{k} {v.item():.6f}" for k, v in self._losses.items()))


class GAN(Trainer):
    def calculate_losses(self, x, z, who):
        fake = self.nets["generator"](z)
        if who == "generator":
            return {"generator": -self.nets["critic"](fake).mean()}
        critic = self.nets["critic"]
        return {"critic": critic(fake.detach()).mean() - critic(x).mean()}


if __name__ == "__main__":
    torch.manual_seed(0)
    nets = {"critic": nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1)),
            "generator": nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 6))}
    gan = GAN(nets)
    gan.fit([torch.randn(8, 6) + 1.0 for _ in range(ITERS)])
    print(f"checksum {sum(p.sum().item() for p in nets['generator'].parameters()):.6f}")
