# expect-before: runs
# A GAN trainer keeps its optimizers in a dict and runs one sub-step per
# optimizer in every batch: `for name in self.optimizers.keys()` picks the
# optimizer (`self.optimizers[name]`), the model's forward scenario and the
# loss, backwards it, steps, and adds it to `total_loss`. The loop is bounded
# by the number of optimizers and `total_loss` starts again at every call:
# each loss's graph is freed by its own backward, and the caller reads the
# sum with `.item()`. Nothing grows from batch to batch.
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

    def _run_and_optimize(self, real):
        total_loss = 0
        for name in self.optimizers.keys():
            self.optimizers[name].zero_grad()
            outputs = self.model(real, name)
            loss = self._gan_loss(outputs, name)
            loss.backward()
            total_loss += loss
            self.optimizers[name].step()
        return total_loss

    def train_epoch(self, batches):
        for batch in batches:
            loss = self._run_and_optimize(batch)
            print(f"loss {loss.item():.6f}")


trainer = Trainer()
for epoch in range(ITERS):
    trainer.train_epoch([torch.randn(8, 6) + 1.0 for _ in range(ITERS)])
print(f"checksum {sum(p.sum().item() for p in trainer.model.parameters()):.6f}")
