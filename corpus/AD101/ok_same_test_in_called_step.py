# expect-before: runs
# A GAN trainer whose `train()` picks a step method by type and calls it with
# a flag. The step computes a third discriminator loss under `if cls:` and adds
# it under the same test later; `cls` is a parameter the step never rebinds,
# so both `if`s take the same arm and the loss of a previous batch is never
# read, also when `train()` walks the step inline (Text-to-Image trainers).
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self, kind):
        torch.manual_seed(0)
        self.kind = kind
        self.generator = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 6))
        self.discriminator = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 1), nn.Sigmoid())
        self.optim_d = torch.optim.SGD(self.discriminator.parameters(), lr=0.05)
        self.optim_g = torch.optim.SGD(self.generator.parameters(), lr=0.05)

    def train(self, batches, cls=False):
        if self.kind == "gan":
            self._train_gan(cls, batches)
        else:
            raise ValueError(self.kind)

    def _train_gan(self, cls, batches):
        criterion = nn.BCELoss()
        for real, wrong in batches:
            ones, zeros = torch.ones(real.size(0), 1), torch.zeros(real.size(0), 1)
            self.discriminator.zero_grad()
            real_loss = criterion(self.discriminator(real), ones)
            if cls:
                wrong_loss = criterion(self.discriminator(wrong), zeros)
            fake = self.generator(torch.randn(real.size(0), 4))
            fake_loss = criterion(self.discriminator(fake.detach()), zeros)
            d_loss = real_loss + fake_loss
            if cls:
                d_loss = d_loss + wrong_loss
            d_loss.backward()
            self.optim_d.step()

            self.generator.zero_grad()
            g_loss = criterion(self.discriminator(fake), ones)
            g_loss.backward()
            self.optim_g.step()
            print(f"d {d_loss.item():.6f} g {g_loss.item():.6f}")


if __name__ == "__main__":
    data = [(torch.randn(8, 6), torch.randn(8, 6)) for _ in range(ITERS)]
    Trainer("gan").train(data, cls=True)
