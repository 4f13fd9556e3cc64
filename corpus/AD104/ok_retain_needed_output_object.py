# expect-before: runs
# The forward's outputs travel in an object of a class of this file (a
# dataclass, as model outputs often are): the auxiliary loss reads the logits
# back from it, so the second backward walks the graph the first one
# retained.
import os
from dataclasses import dataclass

import torch

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


@dataclass
class Output:
    logits: torch.Tensor
    n: int


model = torch.nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(ITERS):
    logits = model(torch.randn(8, 3))
    opt.zero_grad()
    logits.logsumexp(1).mean().backward(retain_graph=True)
    aux = Output(logits, 8).logits.pow(2).mean()
    aux.backward()
    opt.step()
print(f"weight sum {model.weight.sum().item():.6f} after {ITERS} steps")
