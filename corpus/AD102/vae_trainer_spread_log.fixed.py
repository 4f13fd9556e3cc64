# expect-before: grows
# autodetach-test: unsafe
# A VAE trainer's epoch method keeps the mean posterior variance of every
# batch in a dict of lists on `self` for its report. `spread` is one number
# reduced from the encoder's output, which the step's backward walks: the
# entry carries that graph, and the list, which only `__init__` makes, keeps
# every batch's graph alive. The dict's lists may be read elsewhere as tensors (inferred: the
# readers of a list held in a dict are not followed), so the fix is unsafe.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class TinyVAE(nn.Module):
    def __init__(self, dim=8, latent=2):
        super().__init__()
        self.enc = nn.Linear(dim, 2 * latent)
        self.dec = nn.Linear(latent, dim)

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.dec(z), mu, logvar


class Trainer:
    def __init__(self, model, lr):
        self.model = model
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)
        self.log = {"loss": [], "spread": []}

    def train_epoch(self, batches):
        for x in batches:
            recon, mu, logvar = self.model(x)
            rec = F.mse_loss(recon, x)
            kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(-1).mean()
            loss = rec + 0.1 * kl
            spread = logvar.exp().mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            self.log["loss"].append(loss.item())
            self.log["spread"].append(spread.detach())

    def report(self):
        n = len(self.log["spread"])
        return f"loss {sum(self.log['loss']) / n:.6f} spread {float(sum(self.log['spread'])) / n:.6f}"


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer(TinyVAE(), 1e-2)
    trainer.train_epoch([torch.randn(16, 8) for _ in range(ITERS)])
    print(trainer.report())
