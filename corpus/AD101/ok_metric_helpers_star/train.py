# expect-before: runs
# A Solver class sums segmentation metrics over the epoch, computed on the
# training output that carries the network's graph; the helpers come in by
# `from evaluation import *` and each returns a Python float (`float(tp) / ...`,
# `get_f1` from two other helpers), so the running sums keep no graph
# (Image_Segmentation's solver.py).
import os

import torch
import torch.nn as nn

from evaluation import *

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Solver:
    def __init__(self, batches):
        self.batches = batches
        self.net = nn.Sequential(nn.Linear(6, 4), nn.Sigmoid())
        self.criterion = nn.BCELoss()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=1e-2)

    def train(self):
        epoch_loss, acc, f1, recall = 0.0, 0.0, 0.0, 0.0
        for x, y in self.batches:
            out = self.net(x)
            loss = self.criterion(out, y)
            epoch_loss += loss.item()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            acc += get_accuracy(out, y)
            recall += get_recall(out, y)
            f1 += get_f1(out, y)
        n = len(self.batches)
        return epoch_loss / n, acc / n, recall / n, f1 / n


data = [(torch.randn(8, 6), (torch.rand(8, 4) > 0.5).float()) for _ in range(ITERS)]
solver = Solver(data)
print("metrics " + " ".join(f"{v:.6f}" for v in solver.train()))
print(f"checksum {sum(p.sum().item() for p in solver.net.parameters()):.6f}")
