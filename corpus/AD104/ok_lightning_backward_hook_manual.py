# expect-before: runs
# A LightningModule with manual optimisation overrides the `backward(self,
# loss)` hook with retain_graph=True and calls it twice per step on losses
# that share the encoder's graph: the retain is what lets the second run.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class LightningModule(nn.Module):
    """A stand-in for Lightning's manual optimisation API."""

    def backward(self, loss):
        loss.backward()


class AutoEncoder(LightningModule):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = False
        self.encoder = nn.Sequential(nn.Linear(8, 6), nn.Tanh(), nn.Linear(6, 3))
        self.decoder = nn.Sequential(nn.Linear(3, 6), nn.Tanh(), nn.Linear(6, 8))
        self.opt = torch.optim.SGD(self.parameters(), lr=0.05)

    def backward(self, loss):
        loss.backward(retain_graph=True)

    def training_step(self, x):
        self.opt.zero_grad()
        z = self.encoder(x)
        rec = F.mse_loss(self.decoder(z), x)
        self.backward(rec)
        prior = z.pow(2).mean()
        self.backward(prior)
        self.opt.step()
        return rec.item(), prior.item()


model = AutoEncoder()
for i in range(ITERS):
    rec, prior = model.training_step(torch.randn(6, 8))
    print(f"{i} rec {rec:.6f} prior {prior:.6f}")
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
