# expect-before: runs
# An actor whose loss function returns a dict of loss parts; compute_losses sums
# them and returns the dict itself beside the sum, for the log. trainer.py (another
# file) backwards the loss each batch and hands every entry of the dict to a
# RunningAverage (meters.py) that adds it into its total for the whole epoch, so
# the parts keep every batch's graph until the epoch ends. Reported without a fix:
# the entries may be numbers as well as tensors. That they carry a graph is
# inferred from the backwarded sum, what the callers do from their code.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class BaseActor:
    def __init__(self, net):
        self.net = net


class RegressionActor(BaseActor):
    def __init__(self, net, weights):
        super().__init__(net)
        self.weights = weights

    def __call__(self, batch):
        x, y = batch
        loss, status = self.compute_losses(self.net(x), y)
        return loss, status

    def criterion(self, pred, target):
        return {"l1": F.l1_loss(pred, target), "mse": F.mse_loss(pred, target)}

    def compute_losses(self, pred, target):
        loss_dict = self.criterion(pred, target)
        loss = sum(loss_dict[k] * self.weights[k] for k in loss_dict.keys())
        return loss, loss_dict


if __name__ == "__main__":
    from trainer import Trainer

    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    trainer = Trainer(RegressionActor(net, {"l1": 1.0, "mse": 2.0}), torch.optim.SGD(net.parameters(), lr=0.05))
    for epoch in range(2):
        means = trainer.train_epoch(data)
        print(f"epoch {epoch} " + " ".join(f"{k} {v:.6f}" for k, v in sorted(means.items())))
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
