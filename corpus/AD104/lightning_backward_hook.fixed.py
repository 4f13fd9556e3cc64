# expect-before: runs
# autodetach-test: unsafe
# A LightningModule overrides the `backward(self, loss)` hook with
# retain_graph=True. Lightning's automatic optimisation calls the hook once
# per training step with that step's new loss, so the retained graph is never
# used again and only stays alive until the next step replaces it. The fix
# drops the retain (unsafe: inferred from how Lightning calls the hook).
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class LightningModule(nn.Module):
    """A stand-in for Lightning's automatic optimisation loop."""

    def backward(self, loss):
        loss.backward()

    def fit(self, batches, optimizer):
        for batch in batches:
            optimizer.zero_grad()
            loss = self.training_step(batch)
            self.backward(loss)
            optimizer.step()
            print(f"loss {loss.item():.6f}")


class Regressor(LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))

    def training_step(self, batch):
        x, y = batch
        return F.mse_loss(self.net(x), y)

    def backward(self, loss):
        loss.backward()


model = Regressor()
model.fit([(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(ITERS)],
          torch.optim.SGD(model.parameters(), lr=0.05))
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
