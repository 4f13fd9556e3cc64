# expect-before: runs
# A whole-model pickle the author chose to trust, said explicitly.
import os
import tempfile

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
path = os.path.join(tempfile.mkdtemp(), "m.pt")
torch.save(nn.Linear(2, 2), path)
model = torch.load(path, weights_only=False)
for it in range(ITERS):
    print("%.6f" % model(torch.ones(1, 2) * it).sum().item())
