# expect-before: runs
# Column names built from what a module's method returns (here its `extra_repr()`),
# collected in lists annotated as holding strings and counts. The module's method
# is not read, but the annotations say the lists hold no tensor: no graph is kept.
import os
from typing import List

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def table_names(model) -> List[str]:
    names: List[str] = []
    sizes: List[int] = []
    for part in model.extra_repr().split(", "):
        names.append("col@" + part)
        sizes.append(len(part))
    return names


torch.manual_seed(0)
model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(ITERS):
    names = table_names(model)
    loss = model(torch.randn(4, 3)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(len(names), f"checksum {model.weight.sum().item() + ITERS:.6f}")
