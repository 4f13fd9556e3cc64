# expect-before: runs
# A Runner method of lab/engine/ steps a criterion object of lab/losses/ (a
# sibling package, imported by its package path): `crit.backward()` looks like
# a tensor's backward, but `crit.value()` returns `float(... .item())`, so the
# running `history` sums numbers and keeps no graph.
import os

import torch

from lab.engine.runner import Runner

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
net = torch.nn.Linear(4, 1)
total = 0.0
for _ in range(max(1, ITERS // 2)):
    total += Runner().run(net, ITERS)
print("%.6f" % total)
