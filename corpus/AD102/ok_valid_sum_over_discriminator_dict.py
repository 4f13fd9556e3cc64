# expect-before: runs
# A vocoder-style GAN trainer keeps its discriminators in a ModuleDict. Its
# validation step runs with gradients on (nothing here wraps it in no_grad)
# and sums one loss per discriminator: `for key, _ in
# self.discriminators.items()` calls `self.discriminators[key].forward(...)`.
# The loop is bounded by the number of discriminators and the sums start again
# at every call; the validation loop keeps only `.item()` numbers, so each
# step's graphs are dropped when the step returns. Nothing grows.
import os

import torch
import torch.nn.functional as F
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Disc(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, width), nn.LeakyReLU(0.2), nn.Linear(width, 1))

    def forward(self, real, fake):
        return self.net(real), self.net(fake)


class Trainer:
    def __init__(self):
        self.generator = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 8))
        self.discriminators = nn.ModuleDict({"wide": Disc(32), "narrow": Disc(8)})
        self.g_opt = torch.optim.Adam(self.generator.parameters(), lr=1e-3)
        self.d_opt = torch.optim.Adam(self.discriminators.parameters(), lr=1e-3)

    def _train_step(self, mel, audio):
        fake = self.generator(mel)
        d_loss = 0
        for key, disc in self.discriminators.items():
            y_r, y_g = disc(audio, fake.detach())
            d_loss = d_loss + F.softplus(-y_r).mean() + F.softplus(y_g).mean()
        self.d_opt.zero_grad()
        d_loss.backward()
        self.d_opt.step()
        g_loss = F.l1_loss(fake, audio)
        self.g_opt.zero_grad()
        g_loss.backward()
        self.g_opt.step()
        return d_loss.item(), g_loss.item()

    def _valid_step(self, mel, audio):
        discriminator_losses = {}
        discriminator_total_loss = 0
        audio_pred = self.generator.forward(mel)
        for key, _ in self.discriminators.items():
            y_r, y_g = self.discriminators[key].forward(audio, audio_pred)
            discriminator_losses[key] = F.softplus(-y_r).mean() + F.softplus(y_g).mean()
            discriminator_total_loss += discriminator_losses[key]
        return discriminator_total_loss, discriminator_losses

    def _valid_epoch(self, batches):
        total = 0.0
        for mel, audio in batches:
            loss, _ = self._valid_step(mel, audio)
            total += loss.item()
        return total / len(batches)

    def fit(self, batches):
        for epoch in range(ITERS):
            for mel, audio in batches:
                d, g = self._train_step(mel, audio)
            print(epoch, f"{d:.6f} {g:.6f} valid {self._valid_epoch(batches):.6f}")


data = [(torch.randn(4, 4), torch.randn(4, 8)) for _ in range(ITERS)]
Trainer().fit(data)
