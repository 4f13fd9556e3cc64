import torch
import torch.nn as nn
import torch.nn.functional as F

from lite import LiteModule


class AdversarialAE(LiteModule):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(8, 12), nn.ReLU(), nn.Linear(12, 3))
        self.decoder = nn.Sequential(nn.Linear(3, 12), nn.ReLU(), nn.Linear(12, 8))

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        opt.zero_grad()
        z = self.encoder(batch)
        rec = F.mse_loss(self.decoder(z), batch)
        self.manual_backward(rec)
        prior = z.pow(2).mean()
        self.manual_backward(prior)
        opt.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    m = AdversarialAE()
    m.fit([torch.randn(6, 8) for _ in range(5)])
    print(sum(p.sum().item() for p in m.parameters()))
