import sys

import torch
import torch.nn as nn

from lib import two_head_step

torch.manual_seed(0)
trunk, head_a, head_b = nn.Linear(5, 8), nn.Linear(8, 1), nn.Linear(8, 1)
params = list(trunk.parameters()) + list(head_a.parameters()) + list(head_b.parameters())
opt = torch.optim.SGD(params, lr=0.1)
for it in range(int(sys.argv[1]) if len(sys.argv) > 1 else 4):
    print(it, two_head_step(trunk, head_a, head_b, opt, torch.randn(8, 5)))
