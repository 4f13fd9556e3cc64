# expect-before: runs
# The same phase trainer, written correctly: `train_g()` builds the
# generator's loss itself, after the critic's steps, from the output that
# `train_d()` kept on `self` (the encoder and generator are not stepped
# in between, so that graph is still valid).
import itertools
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self, enc, gen, dis, n_critic=2):
        self.enc, self.gen, self.dis = enc, gen, dis
        self.n_critic = n_critic
        self.opt_g = torch.optim.Adam(itertools.chain(enc.parameters(), gen.parameters()), lr=1e-3)
        self.opt_d = torch.optim.Adam(dis.parameters(), lr=1e-3)

    def train_d(self, x):
        self.opt_d.zero_grad()
        self.fake = self.gen(self.enc(x))
        self.loss_d = self.dis(self.fake.detach()).mean() - self.dis(x).mean()
        self.loss_d.backward()
        self.opt_d.step()

    def train_g(self):
        self.opt_g.zero_grad()
        self.loss_g = -self.dis(self.fake).mean()
        self.loss_g.backward()
        self.opt_g.step()

    def step(self, x):
        for _ in range(self.n_critic):
            self.train_d(x)
        self.train_g()
        return self.loss_d.item(), self.loss_g.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    enc = nn.Sequential(nn.Linear(6, 8), nn.Tanh())
    gen = nn.Linear(8, 6)
    dis = nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    trainer = Trainer(enc, gen, dis)
    for it in range(ITERS):
        loss_d, loss_g = trainer.step(torch.randn(16, 6))
        print(f"{it} loss_d {loss_d:.6f} loss_g {loss_g:.6f}")
    print(f"checksum {sum(p.sum().item() for p in gen.parameters()):.6f}")
