# expect-before: error Trying to backward through the graph a second time
# A recurrent-memory block (this file, library code) keeps two pieces of memory,
# a matrix and its normaliser, in registered buffers and updates both at once
# through a helper that returns a tuple, after reading them into its output.
# The reader around it resets them between documents with `zero_()`, in place,
# which keeps their history: nothing cuts the chain, so the training loop of
# driver.py, which backwards every segment, walks into the previous segment's
# freed graph. Reported without a fix: `.detach()` of the helper's tuple raises.
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class MemoryBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj_k = nn.Linear(dim, dim)
        self.proj_v = nn.Linear(dim, dim)
        self.register_buffer("mat", torch.zeros(dim, dim))
        self.register_buffer("norm", torch.ones(dim))

    def forward(self, h):
        read = (F.elu(h) + 1) @ self.mat / ((F.elu(h) + 1) @ self.norm).unsqueeze(-1)
        self.mat, self.norm = self._write(self.proj_k(h), self.proj_v(h), self.mat, self.norm)
        return h + read

    def _write(self, k, v, mat, norm):
        sigma = F.elu(k) + 1
        return mat + sigma.t() @ v, norm + sigma.sum(0)


class Reader(nn.Module):
    def __init__(self, dim, depth=2):
        super().__init__()
        self.embed = nn.Linear(4, dim)
        self.blocks = nn.ModuleList([MemoryBlock(dim) for _ in range(depth)])
        self.head = nn.Linear(dim, 1)

    def forward(self, x):
        h = self.embed(x)
        for block in self.blocks:
            h = block(h)
        return self.head(h)

    def forget(self):
        for block in self.blocks:
            block.mat.zero_()
            block.norm.fill_(1.0)


if __name__ == "__main__":
    sys.modules.setdefault("train", sys.modules["__main__"])  # driver.py imports this file's classes
    import driver

    torch.manual_seed(0)
    driver.run(Reader(8), ITERS)
