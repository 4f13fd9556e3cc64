import pytorch_lightning as pl
import torch
import torch.nn.functional as F
from torch import nn

from fit1x import fit


class Model(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 2)

    def training_step(self, batch, batch_idx):
        x, y = batch
        pred = self.net(x)
        loss = F.mse_loss(pred, y)
        first = F.l1_loss(pred[:, 0], y[:, 0])
        out = {"loss": loss, "first": first}
        return out

    def training_epoch_end(self, outputs):
        print(torch.stack([o["first"] for o in outputs]).mean().item())

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


torch.manual_seed(0)
fit(Model(), [(torch.randn(8, 4), torch.randn(8, 2)) for _ in range(4)])
