# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A time-series GAN trainer keeps its whole forward on `self` (`forward_all()`),
# and its driver (run.py, another file) zeroes the gradients once per batch,
# then runs `train_generator()` and `train_embedder(joint=True)` on that one
# forward: the generator loss reads the embedding, so its backward frees the
# embedding graph that the embedder loss walks next, and the embedder step uses
# the gradients of both. Neither method shows the clash alone; the driver's
# order does (inferred: callers out of sight are not seen), so the fix is
# unsafe.
import os

import torch
import torch.nn.functional as F
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class SeriesGAN:
    def __init__(self):
        self.embedder = nn.Linear(4, 6)
        self.recovery = nn.Linear(6, 4)
        self.generator = nn.Linear(3, 6)
        self.supervisor = nn.Linear(6, 6)
        self.opt_e = torch.optim.Adam([*self.embedder.parameters(), *self.recovery.parameters()], lr=1e-2)
        self.opt_g = torch.optim.Adam([*self.generator.parameters(), *self.supervisor.parameters()], lr=1e-2)

    def next_batch(self):
        self.x = torch.randn(8, 4)
        self.z = torch.randn(8, 3)

    def forward_all(self):
        self.h = self.embedder(self.x)
        self.x_tilde = self.recovery(self.h)
        self.h_sup = self.supervisor(self.h)
        self.x_hat = self.recovery(self.supervisor(self.generator(self.z)))

    def zero_grads(self):
        self.opt_e.zero_grad()
        self.opt_g.zero_grad()

    def train_embedder(self, joint=False):
        self.e_loss = F.mse_loss(self.x_tilde, self.x)
        if joint:
            self.e_loss = self.e_loss + 0.1 * self.h.pow(2).mean()
        self.e_loss.backward()
        self.opt_e.step()

    def train_generator(self):
        self.g_loss = F.mse_loss(self.h_sup, self.h) + (self.x_hat.mean(0) - self.x.mean(0)).abs().mean()
        self.g_loss.backward(retain_graph=True)
        self.opt_g.step()


if __name__ == "__main__":
    from run import train

    torch.manual_seed(0)
    model = train(ITERS)
    print(f"checksum {sum(p.sum().item() for p in model.generator.parameters()):.6f}")
