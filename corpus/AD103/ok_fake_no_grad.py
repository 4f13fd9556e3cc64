# expect-before: runs
# The D step draws its fake batch under torch.no_grad(); the G step draws a
# fresh one with a graph. Nothing is shared between the two backwards.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class GANTrainer:
    def __init__(self, latent=6, data_dim=10):
        self.latent = latent
        self.G = nn.Sequential(nn.Linear(latent, 24), nn.ReLU(), nn.Linear(24, data_dim))
        self.D = nn.Sequential(nn.Linear(data_dim, 24), nn.LeakyReLU(0.2), nn.Linear(24, 1))
        self.opt_g = torch.optim.Adam(self.G.parameters(), lr=1e-3, betas=(0.5, 0.9))
        self.opt_d = torch.optim.Adam(self.D.parameters(), lr=1e-3, betas=(0.5, 0.9))

    def train_step(self, real):
        n = real.size(0)
        with torch.no_grad():
            fake = self.G(torch.randn(n, self.latent))
        self.opt_d.zero_grad()
        real_logits = self.D(real)
        fake_logits = self.D(fake)
        d_loss = (F.binary_cross_entropy_with_logits(real_logits, torch.ones_like(real_logits))
                  + F.binary_cross_entropy_with_logits(fake_logits, torch.zeros_like(fake_logits)))
        d_loss.backward()
        self.opt_d.step()

        fake = self.G(torch.randn(n, self.latent))
        self.opt_g.zero_grad()
        gen_logits = self.D(fake)
        g_loss = F.binary_cross_entropy_with_logits(gen_logits, torch.ones_like(gen_logits))
        g_loss.backward()
        self.opt_g.step()
        return d_loss.item(), g_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = GANTrainer()
    for it in range(ITERS):
        d_loss, g_loss = trainer.train_step(torch.randn(16, 10) + 2.0)
        print(f"{it} d {d_loss:.6f} g {g_loss:.6f}")
    print(f"checksum {sum(p.sum().item() for p in trainer.G.parameters()):.6f}")
