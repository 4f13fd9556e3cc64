# expect-before: runs
# The Trainer of helper_loss_dict_epoch_sum.py, correct: the loss dict comes
# back from a helper and `losses["total"]` is backwarded, but the epoch sum adds
# `.item()` of it, a float: no graph outlives the step.
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
                epoch_sum += losses["total"].item()
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
