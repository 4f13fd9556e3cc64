# expect-before: error modified by an inplace operation
# autodetach-test: unsafe
# The same 2018 pattern inside a trainer class: the generator loss is built
# before the discriminator's optimizer step and backwarded after it.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self):
        self.G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
        self.D = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
        self.opt_G = torch.optim.RMSprop(self.G.parameters(), lr=5e-4)
        self.opt_D = torch.optim.RMSprop(self.D.parameters(), lr=5e-4)

    def step(self, real):
        fake = self.G(torch.randn(real.size(0), 4))
        real_logits = self.D(real)
        fake_logits = self.D(fake.detach())
        loss_D = (F.binary_cross_entropy_with_logits(real_logits, torch.ones_like(real_logits))
                  + F.binary_cross_entropy_with_logits(fake_logits, torch.zeros_like(fake_logits)))
        loss_G = F.softplus(-self.D(fake)).mean()
        self.opt_D.zero_grad()
        loss_D.backward()
        self.opt_D.step()
        self.opt_G.zero_grad()
        loss_G.backward()
        self.opt_G.step()
        return loss_D.item(), loss_G.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer()
    for it in range(ITERS):
        real = torch.randn(24, 2) * 0.2 + torch.tensor([1.0, -0.5])
        loss_D, loss_G = trainer.step(real)
        print(f"{it} loss_D {loss_D:.6f} loss_G {loss_G:.6f}")
    print(f"checksum {sum(p.sum().item() for p in trainer.G.parameters()):.6f}")
