# expect-before: runs
# The auxiliary backward runs in methods of objects made on the spot
# (`Penalty().apply(out)`, `Smooth()(out)`): both walk the graph the first
# backward retained, so the retain is needed.
import os

import torch

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Penalty:
    def apply(self, t):
        (0.1 * t.abs().mean()).backward(retain_graph=True)


class Smooth:
    def __call__(self, t):
        (0.01 * (t[1:] - t[:-1]).pow(2).mean()).backward()


model = torch.nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(ITERS):
    out = model(torch.randn(8, 3))
    opt.zero_grad()
    out.pow(2).mean().backward(retain_graph=True)
    Penalty().apply(out)
    Smooth()(out)
    opt.step()
print(f"weight sum {model.weight.sum().item():.6f} after {ITERS} steps")
