# expect-before: runs
# Ghost clipping: a first backward runs only for what a tensor hook records
# (the per-sample gradient norms), its gradients are zeroed, and a second
# backward over the same graph, reweighted by those norms, is the one the
# optimizer steps. The retain is what the second pass needs; detaching the
# per-sample losses on the first pass would leave it nothing to walk (and
# nothing for the hook to record). Nothing to report.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
norms = {}

for step in range(ITERS):
    x = torch.randn(16, 6)
    y = torch.randn(16, 1)
    hidden = model[1](model[0](x))
    hidden.register_hook(lambda g: norms.__setitem__("h", g.norm(dim=1)))
    per_sample = (model[2](hidden) - y).pow(2).squeeze(1)
    first_loss = per_sample.mean()
    first_loss.backward(retain_graph=True)
    opt.zero_grad()
    coef = (1.0 / (norms["h"] * 16 + 1e-6)).clamp(max=1.0)
    second_loss = (coef * per_sample).sum()
    second_loss.backward()
    opt.step()

print(f"{sum(p.sum().item() for p in model.parameters()):.6f}")
