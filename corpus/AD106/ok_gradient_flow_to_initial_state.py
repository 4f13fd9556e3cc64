# expect-before: runs
# A gradient-flow experiment: a GRU cell is unrolled one step per iteration from
# `state0`, and after each step's backward the loop records how much gradient reaches
# `state0`. Backprop through every earlier step is the point, so the retained graph
# and the chained state are wanted: nothing is reported.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

torch.manual_seed(0)
cell = nn.GRUCell(3, 6)
inputs = torch.randn(ITERS, 2, 3)
state0 = torch.zeros(2, 6, requires_grad=True)
state = state0
norms = []
for step in range(ITERS):
    state = cell(inputs[step], state)
    objective = state.pow(2).sum()
    objective.backward(retain_graph=True)
    norms.append(state0.grad.norm().item())
    state0.grad = None
print(" ".join(f"{n:.6f}" for n in norms))
print(f"steps {ITERS}")
