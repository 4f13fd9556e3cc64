# expect-before: runs
# The nearest shape that does leak: the GAN trainer's sub-steps over its dict
# of optimizers (`for name in self.optimizers.keys()`) add each backwarded
# loss to `epoch_loss`, which starts once per epoch, outside the batch loop:
# the sum links every batch's generator and discriminator graphs (their
# nodes; each backward freed what they saved) until the epoch ends. The
# `.detach()` changes no number: the sum is only read with `.item()`.
import os

import torch
import torch.nn.functional as F
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class TinyGAN(nn.Module):
    def __init__(self):
        super().__init__()
        self.generator = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 6))
        self.discriminator = nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))

    def forward(self, real, scenario):
        z = torch.randn(real.shape[0], 4)
        if scenario == "discriminator":
            fake = self.generator(z).detach()
            return self.discriminator(real), self.discriminator(fake)
        return None, self.discriminator(self.generator(z))


class Trainer:
    def __init__(self):
        self.model = TinyGAN()
        self.optimizers = {
            "discriminator": torch.optim.Adam(self.model.discriminator.parameters(), lr=1e-3),
            "generator": torch.optim.Adam(self.model.generator.parameters(), lr=1e-3),
        }

    def _gan_loss(self, outputs, name):
        real, fake = outputs
        if name == "discriminator":
            return F.softplus(-real).mean() + F.softplus(fake).mean()
        return F.softplus(-fake).mean()

    def train_epoch(self, batches):
        epoch_loss = 0
        for real in batches:
            for name in self.optimizers.keys():
                self.optimizers[name].zero_grad()
                outputs = self.model(real, name)
                loss = self._gan_loss(outputs, name)
                loss.backward()
                epoch_loss += loss.detach()
                self.optimizers[name].step()
        print(f"epoch loss {epoch_loss.item() / len(batches):.6f}")


trainer = Trainer()
for epoch in range(ITERS):
    trainer.train_epoch([torch.randn(8, 6) + 1.0 for _ in range(ITERS)])
print(f"checksum {sum(p.sum().item() for p in trainer.model.parameters()):.6f}")
