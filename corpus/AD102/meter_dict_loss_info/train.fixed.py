# expect-before: runs
# autodetach-test: unsafe
# A Trainer keeps one AverageMeter (the project's meters.py) per entry of the
# loss dict in a dict of meters built at the first step, and feeds each meter
# its entry at every step. The entries are the step's loss tensors, backwarded
# in inference_one_batch, so the meters' running sums chain every step's graph
# until the epoch ends. What the meters keep is inferred from their class's
# code in another file: the fix is offered as unsafe.
import os

import torch
import torch.nn as nn

from meters import AverageMeter

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    def loss(self, out, y):
        mse = nn.functional.mse_loss(out, y)
        l1 = nn.functional.l1_loss(out, y)
        return {"loss": mse + 0.5 * l1, "mse": mse, "l1": l1}

    def inference_one_batch(self, x, y):
        self.model.train()
        loss_info = self.loss(self.model(x), y)
        loss_info["loss"].backward()
        return loss_info

    def inference_one_epoch(self, loader):
        stats_meter = None
        for x, y in loader:
            self.optimizer.zero_grad()
            loss_info = self.inference_one_batch(x, y)
            self.optimizer.step()
            if stats_meter is None:
                stats_meter = dict()
                for key in loss_info:
                    stats_meter[key] = AverageMeter()
            for key, value in loss_info.items():
                stats_meter[key].update(value.detach())
        return {key: float(meter.avg) for key, meter in stats_meter.items()}


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    stats = Trainer(model).inference_one_epoch(data)
    print(" ".join(f"{k} {v:.6f}" for k, v in sorted(stats.items())))
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
