# expect-before: runs
# The same library memory layer as memory_buffer_library_module: forward reads
# the memory and sets it anew from this segment's graph. Its caller (driver.py)
# cuts the chain after every segment's backward (`layer.memory =
# layer.memory.detach()`, truncated backpropagation through time), so no graph
# outlives its segment: no finding.
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class SegmentMemory(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.key = nn.Linear(dim, dim)
        self.value = nn.Linear(dim, dim)
        self.register_buffer("memory", torch.zeros(dim, dim))

    def forward(self, x):
        recalled = F.elu(x) @ self.memory
        k, v = self.key(x), self.value(x)
        self.memory = self.memory + (F.elu(k) + 1).t() @ v / x.shape[0]
        return x + torch.tanh(recalled)


if __name__ == "__main__":
    sys.modules.setdefault("train", sys.modules["__main__"])  # driver.py imports this file's classes
    import driver

    torch.manual_seed(0)
    driver.run(ITERS)
