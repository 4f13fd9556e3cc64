# expect-before: runs
# The same actor and trainer as flag_stats_dict_returned_to_meters, done right:
# compute_losses returns `status` with numbers (`.item()` of each part), so the
# epoch's meters keep no graph. Nothing to report.
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

    def compute_losses(self, pred, target):
        loss_dict = {"l1": F.l1_loss(pred, target), "mse": F.mse_loss(pred, target)}
        weighted = {}
        for k in loss_dict.keys():
            if k in self.weights:
                weighted[k] = loss_dict[k] * self.weights[k]
        loss = sum(weighted.values())
        status = {k: v.item() for k, v in loss_dict.items()}
        status["total"] = loss.item()
        return loss, status


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
