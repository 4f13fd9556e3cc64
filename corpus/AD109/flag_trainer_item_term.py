# expect-before: runs
# A VAE trainer class with AMP (disabled on CPU): the step adds the KL term
# as `self.kl_weight * kl.item()`, a Python number. The whole KL term is a
# constant, so the encoder learns only from the reconstruction: the
# regulariser the author weighted is silently gone.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(8, 4)
        self.dec = nn.Linear(2, 8)

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.dec(z), mu, logvar


class Trainer:
    def __init__(self, model, kl_weight=1.0):
        self.model = model
        self.kl_weight = kl_weight
        self.opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        self.scaler = torch.amp.GradScaler("cuda", enabled=torch.cuda.is_available())

    def step(self, x):
        recon, mu, logvar = self.model(x)
        rec = (recon - x).pow(2).mean()
        kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(1).mean()
        loss = rec + self.kl_weight * kl.item()
        self.opt.zero_grad()
        self.scaler.scale(loss).backward()
        self.scaler.step(self.opt)
        self.scaler.update()
        return loss.item()


torch.manual_seed(0)
trainer = Trainer(VAE())
for it in range(ITERS):
    print(f"loss {trainer.step(torch.randn(16, 8)):.6f}")
print(f"checksum {sum(p.sum().item() for p in trainer.model.parameters()):.6f}")
