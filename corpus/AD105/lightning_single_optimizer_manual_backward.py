# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# Lightning-style manual optimisation with ONE optimizer (`opt =
# self.optimizers()`) over the encoder and the decoder. The prior term's
# backward needs `z`'s graph, which the reconstruction's backward freed;
# the step uses the encoder's gradients from both, so the fix is
# retain_graph=True, not `self.decoder(z.detach())` (inferred from
# self.optimizers(): unsafe).
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class ManualModule(nn.Module):
    """A stand-in for LightningModule's manual optimisation API."""

    def manual_backward(self, loss, *args, **kwargs):
        loss.backward(*args, **kwargs)

    def optimizers(self):
        return self._optimizer


class AdversarialAE(ManualModule):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(8, 12), nn.ReLU(), nn.Linear(12, 3))
        self.decoder = nn.Sequential(nn.Linear(3, 12), nn.ReLU(), nn.Linear(12, 8))
        self._optimizer = torch.optim.Adam(self.parameters(), lr=1e-2)

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        opt.zero_grad()
        z = self.encoder(batch)
        rec = F.mse_loss(self.decoder(z), batch)
        self.manual_backward(rec)
        prior = z.pow(2).mean()
        self.manual_backward(prior)
        opt.step()
        return rec, prior


model = AdversarialAE()
for it in range(ITERS):
    rec, prior = model.training_step(torch.randn(6, 8), it)
    print(f"{it} rec {rec.item():.6f} prior {prior.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
