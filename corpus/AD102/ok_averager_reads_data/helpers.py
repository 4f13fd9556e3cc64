"""The project's averager, written for PyTorch 0.3 (imported by train.py)."""
import torch
from torch.autograd import Variable


class averager(object):
    def __init__(self):
        self.reset()

    def add(self, v):
        # every tensor is a Variable since 0.4: the first branch always runs
        if isinstance(v, Variable):
            count = v.data.numel()
            v = v.data.sum()
        elif isinstance(v, torch.Tensor):
            count = v.numel()
            v = v.sum()
        self.n_count += count
        self.sum += v

    def reset(self):
        self.n_count = 0
        self.sum = 0

    def val(self):
        return self.sum / float(self.n_count) if self.n_count else 0
