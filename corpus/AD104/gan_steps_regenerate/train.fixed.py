# expect-before: runs
# autodetach-test: unsafe
# A GAN trainer whose phases are separate methods: `forward()` keeps the fake
# batch on `self`, `update_d()` backwards the critic loss on the undetached fake
# with retain_graph=True (as if `update_g()` reused that graph), and
# `update_g()` builds the generator loss from `self.fake`. The loop is in
# another file (loop.py), and it runs `forward()` again before `update_g()`:
# the generator loss walks a new graph, so the retained one is never used
# again. The order is read from loop.py (inferred: callers out of sight are not seen), so the fix is unsafe.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class PairTrainer:
    def __init__(self):
        self.net_g = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 5))
        self.net_d = nn.Sequential(nn.Linear(5, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
        self.opt_g = torch.optim.Adam(self.net_g.parameters(), lr=1e-3)
        self.opt_d = torch.optim.Adam(self.net_d.parameters(), lr=1e-3)

    def set_input(self, batch):
        self.real, self.z = batch

    def forward(self):
        self.fake = self.net_g(self.z)

    def update_d(self):
        self.opt_d.zero_grad()
        self.loss_d = self.net_d(self.fake).mean() - self.net_d(self.real).mean()
        self.loss_d.backward()
        self.opt_d.step()

    def update_g(self):
        self.opt_g.zero_grad()
        self.loss_g = -self.net_d(self.fake).mean()
        self.loss_g.backward()
        self.opt_g.step()


if __name__ == "__main__":
    from loop import fit

    torch.manual_seed(0)
    batches = [(torch.randn(8, 5), torch.randn(8, 3)) for _ in range(ITERS)]
    trainer = fit(batches)
    print(f"checksum {sum(p.sum().item() for p in trainer.net_g.parameters()):.6f}")
