# expect-before: runs
# autodetach-test: unsafe
# A time-series GAN trainer keeps its whole forward on `self`: `forward_all()`
# stores the embedding and the generator's outputs, and the `train_*` methods
# build their losses from them. `train_generator(joint=True)` backwards with
# retain_graph=True because `train_embedder` reads the same stored tensors;
# but the driver (run.py) runs `forward_all()` again in between, so no later
# backward walks the retained graph: it only stays alive through `self.g_loss`
# until the next call. The order is read from run.py (inferred: callers
# out of sight are not seen), so the fix is unsafe.
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

    def train_embedder(self, joint=False):
        self.opt_e.zero_grad()
        self.e_loss = F.mse_loss(self.x_tilde, self.x)
        if joint:
            self.e_loss = self.e_loss + 0.1 * self.h.pow(2).mean()
        self.e_loss.backward()
        self.opt_e.step()

    def train_generator(self, joint=False):
        self.opt_g.zero_grad()
        self.g_loss = F.mse_loss(self.h_sup, self.h) + (self.x_hat.mean(0) - self.x.mean(0)).abs().mean()
        if not joint:
            self.g_loss.backward()
        else:
            self.g_loss.backward()
        self.opt_g.step()


if __name__ == "__main__":
    from run import train

    torch.manual_seed(0)
    model = train(ITERS)
    print(f"checksum {sum(p.sum().item() for p in model.generator.parameters()):.6f}")
