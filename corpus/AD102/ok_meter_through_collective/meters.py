"""The project's metric averaged over workers (imported by train.py)."""
import torch

import comm


class Metric:
    def __init__(self, name):
        self.name = name
        self.sum = torch.tensor(0.0)
        self.n = torch.tensor(0.0)

    def update(self, val):
        self.sum += comm.all_mean(val.detach())
        self.n += 1

    @property
    def avg(self):
        return self.sum / self.n
