# expect-before: error backward through the graph a second time
# The nearest shape that does cross iterations: the gradient term is stored
# in `self.loss_dict` only on even steps (`if step % 2 == 0`), a test that
# changes with the step. On odd steps the entry still holds the previous
# step's term, whose graph that step's backward freed, and the sum walks
# into it again.
import os
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.G = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
        self.opt = torch.optim.SGD(self.G.parameters(), lr=0.05)
        self.loss_dict = {"rec": None, "smooth": None, "grad": None}

    def train(self, batches):
        for step, (x, y) in enumerate(batches):
            pred = self.G(x)
            loss = 0
            if self.cfg.rec_weight > 0:
                self.loss_dict["rec"] = F.l1_loss(pred, y) * self.cfg.rec_weight
            if self.cfg.smooth_weight > 0:
                self.loss_dict["smooth"] = F.smooth_l1_loss(pred, y) * self.cfg.smooth_weight
            if step % 2 == 0:
                self.loss_dict["grad"] = (pred[1:] - pred[:-1]).abs().mean() * self.cfg.grad_weight
            for key in self.loss_dict.keys():
                if self.loss_dict[key] is not None:
                    loss += self.loss_dict[key]
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            print(f"{step} loss {loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    cfg = SimpleNamespace(rec_weight=1.0, smooth_weight=0.5, grad_weight=0.1)
    trainer = Trainer(cfg)
    trainer.train([(torch.randn(8, 6), torch.randn(8, 1)) for _ in range(ITERS)])
    print(f"checksum {sum(p.sum().item() for p in trainer.G.parameters()):.6f}")
