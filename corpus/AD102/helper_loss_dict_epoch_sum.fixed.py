# expect-before: runs
# autodetach-test: unsafe
# A VAE Trainer: each step starts `losses = dict()`, then rebinds it to what a
# helper returns (`losses, extra = self.step(losses, x)`, the dict filled by
# another method), backwards `losses["total"]` and adds that very tensor to an
# epoch sum kept only for logging. The backward proves the element carries a
# graph, so every step's graph stays chained into `epoch_sum` until the epoch
# ends. The sum is never backwarded: the fix keeps `.detach()` of the term.
# `self.optim` (handed to __init__) is inferred to be an optimizer from its
# .step()/.zero_grad() calls, so the fix is offered as unsafe.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self, enc, dec, optim):
        self.enc, self.dec, self.optim = enc, dec, optim

    def loss_fn(self, x, recon, mu):
        out = dict()
        out["recon"] = F.mse_loss(recon, x)
        out["kld"] = 0.5 * mu.pow(2).mean()
        out["total"] = out["recon"] + out["kld"]
        return out

    def step(self, losses, x):
        mu = self.enc(x)
        recon = self.dec(mu)
        losses.update(self.loss_fn(x, recon, mu))
        return losses, {"recon": recon}

    def train(self, batches, epochs):
        log = []
        for epoch in range(epochs):
            epoch_sum = 0
            for i, x in enumerate(batches):
                losses = dict()
                losses, extra = self.step(losses, x)
                self.optim.zero_grad()
                losses["total"].backward()
                epoch_sum += losses["total"].detach()
                losses["epoch"] = epoch_sum / (i + 1)
                self.optim.step()
            log.append(float(losses["epoch"]))
        return log


if __name__ == "__main__":
    torch.manual_seed(0)
    enc, dec = nn.Linear(8, 3), nn.Linear(3, 8)
    optim = torch.optim.SGD(list(enc.parameters()) + list(dec.parameters()), lr=0.1)
    batches = [torch.randn(16, 8) for _ in range(3)]
    log = Trainer(enc, dec, optim).train(batches, ITERS)
    print(" ".join(f"{v:.6f}" for v in log))
    print(f"checksum {sum(p.sum().item() for p in list(enc.parameters()) + list(dec.parameters())):.6f}")
