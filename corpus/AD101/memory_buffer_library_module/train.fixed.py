# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A library layer (this file) keeps a compressive memory of the segments it has
# seen in a registered buffer: forward reads the memory into this segment's
# output, then sets it to the old memory plus this segment's keys and values, so
# the new memory hangs from this segment's graph. Nothing in the project cuts it
# (no method or caller sets it anew or detaches it), so the user's training loop
# (driver.py), which backwards every segment, walks into the previous segment's
# freed graph on its second step. The fix is unsafe: it stops gradients flowing
# into earlier segments.
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class CompressiveMemory(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.key = nn.Linear(dim, dim)
        self.value = nn.Linear(dim, dim)
        self.register_buffer("memory", torch.zeros(dim, dim))

    def forward(self, x):
        recalled = F.elu(x) @ self.memory
        k, v = self.key(x), self.value(x)
        self.memory = (self.memory + (F.elu(k) + 1).t() @ v / x.shape[0]).detach()
        return x + torch.tanh(recalled)


if __name__ == "__main__":
    sys.modules.setdefault("train", sys.modules["__main__"])  # driver.py imports this file's classes
    import driver

    torch.manual_seed(0)
    driver.run(ITERS)
