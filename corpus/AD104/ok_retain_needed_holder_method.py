# expect-before: runs
# The logits are kept by an object of a plain class of this file, and the
# auxiliary loss reads them back through its method, so the second backward
# walks the graph the first one retained.
import os

import torch

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Holder:
    def __init__(self, value):
        self._value = value

    def get(self):
        return self._value


model = torch.nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(ITERS):
    logits = model(torch.randn(8, 3))
    opt.zero_grad()
    logits.logsumexp(1).mean().backward(retain_graph=True)
    aux = Holder(logits).get().mean()
    aux.backward()
    opt.step()
print(f"weight sum {model.weight.sum().item():.6f} after {ITERS} steps")
