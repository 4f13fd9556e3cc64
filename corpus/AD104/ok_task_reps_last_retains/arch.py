import torch
from torch import nn


class HardSharing(nn.Module):
    """The architecture half of a multi-task model: it keeps each task's
    representation on `self.rep`, and hands the decoders a detached copy, so
    that the weighting half can backward each task's gradient into the encoder."""

    def __init__(self, task_name):
        super().__init__()
        self.task_name = task_name
        self.encoder = nn.Sequential(nn.Linear(10, 16), nn.Tanh())
        self.decoders = nn.ModuleDict({t: nn.Linear(16, 1) for t in task_name})
        self.rep = {}
        self.rep_tasks = {}

    def forward(self, x):
        out = {}
        shared = self.encoder(x)
        for task in self.task_name:
            self.rep[task] = shared * 1.0
            self.rep_tasks[task] = shared.detach().clone().requires_grad_(True)
            out[task] = self.decoders[task](self.rep_tasks[task])
        return out
