import torch.nn as nn


class DataParallelish(nn.Module):
    """Holds the real model in .module, as nn.DataParallel does."""

    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)
