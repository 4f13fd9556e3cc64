# expect-before: runs
# An adversarial autoencoder whose encoder regulariser lives in a base class
# here and whose training step lives in a subclass in loop.py. The helper
# backwards the encoder loss with retain_graph=True on `z`, an argument; the
# caller then builds the reconstruction loss from the same `z` and backwards
# it through the encoder again. Nothing inside the helper shows that, but
# its caller does: the retain is needed.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class AAETraining:
    def __init__(self):
        self.enc = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))
        self.dec = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 6))
        self.d_z = nn.Sequential(nn.Linear(3, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1), nn.Sigmoid())
        self.opt_ae = torch.optim.Adam([*self.enc.parameters(), *self.dec.parameters()], lr=1e-3)
        self.opt_dz = torch.optim.Adam(self.d_z.parameters(), lr=1e-3)

    def update_encoding(self, z_sample):
        z_real = torch.randn_like(z_sample)
        self.opt_dz.zero_grad()
        d_real, d_fake = self.d_z(z_real), self.d_z(z_sample.detach())
        loss_dz = -torch.mean(torch.log(d_real + 1e-8) + torch.log(1 - d_fake + 1e-8))
        loss_dz.backward()
        self.opt_dz.step()
        loss_e = -torch.mean(torch.log(self.d_z(z_sample) + 1e-8))
        loss_e.backward(retain_graph=True)
        return {"loss_dz": loss_dz.item(), "loss_e": loss_e.item()}


if __name__ == "__main__":
    from loop import Unsupervised

    torch.manual_seed(0)
    trainer = Unsupervised()
    for step in range(ITERS):
        stats = trainer.run_batch(torch.randn(8, 6))
        print(step, " ".join(f"{k} {v:.6f}" for k, v in sorted(stats.items())))
    print(f"checksum {sum(p.sum().item() for p in trainer.enc.parameters()):.6f}")
