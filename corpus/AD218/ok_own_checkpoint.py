# expect-before: runs
# A training script's own `checkpoint` (saving a model), not activation
# checkpointing.
import os
import tempfile

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def checkpoint(model, path):
    torch.save(model.state_dict(), path)


torch.manual_seed(0)
net = nn.Linear(2, 2)
d = tempfile.mkdtemp()
for it in range(ITERS):
    checkpoint(net, os.path.join(d, "net.pt"))
    print("%.6f" % net.weight.sum().item())
