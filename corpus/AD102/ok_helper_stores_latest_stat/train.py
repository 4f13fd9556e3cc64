# expect-before: runs
# helper_stores_for_remote_loop with a status board instead of a collector:
# loop.py hands the helper a `StatusBoard` whose `__setitem__` replaces the
# key's value (board.py), so the board holds one step's loss, the latest, and
# no graph outlives the next step. Nothing to report.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Worker:
    def forward_and_collect(self, model, batch, status, episode):
        x, y = batch
        logits = model(x)
        loss = F.mse_loss(logits, y)
        status["episode"] = episode
        status["loss"] = loss
        return logits, loss


if __name__ == "__main__":
    import sys

    sys.modules["train"] = sys.modules["__main__"]  # loop.py's `from train import Worker` gets this file
    from loop import Trainer

    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    trainer = Trainer(net)
    for epoch in range(2):
        print(f"epoch {epoch} last loss {trainer.train(data):.6f}")
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
