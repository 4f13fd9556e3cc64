# expect-before: runs
# A library memory block reads its memory buffers into the output and stores
# what a helper hands back; the helper returns the new memory detached, so each
# segment's backward stays within its own graph: no finding.
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class DetachedMemory(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.to_k = nn.Linear(dim, dim)
        self.to_v = nn.Linear(dim, dim)
        self.register_buffer("m", torch.zeros(dim, dim))
        self.register_buffer("z", torch.ones(dim))

    def forward(self, h):
        out = (F.elu(h) + 1) @ self.m / ((F.elu(h) + 1) @ self.z).unsqueeze(-1)
        self.m, self.z = self._update(self.to_k(h), self.to_v(h), self.m, self.z)
        return h + out

    def _update(self, k, v, m, z):
        sigma = F.elu(k) + 1
        new_m = m + sigma.t() @ v
        new_z = z + sigma.sum(0)
        return new_m.detach(), new_z.detach()


if __name__ == "__main__":
    sys.modules.setdefault("train", sys.modules["__main__"])  # driver.py imports this file's classes
    import driver

    torch.manual_seed(0)
    driver.run(ITERS)
