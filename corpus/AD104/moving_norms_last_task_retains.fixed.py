# expect-before: runs
# autodetach-test: unsafe
# MetaBalance-style gradient scaling: each task loss is backwarded in turn and
# a moving average of its shared-layer gradient norm is kept per task
# (`norms[idx] = ...`, an entry the loop's index picks: the store changes the
# list, not the index). Every task but the last needs retain_graph=True, as
# the next task's backward walks the shared trunk again, but the last one
# retains too, and nothing after the loop backwards that graph. The fix reads
# `len(losses)`: that what `enumerate` walks has a len() is inferred, so the
# fix is unsafe.
import os

import torch
from torch import nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

trunk = nn.Sequential(nn.Linear(6, 8), nn.Tanh())
heads = nn.ModuleList([nn.Linear(8, 1) for _ in range(3)])
opt = torch.optim.SGD([*trunk.parameters(), *heads.parameters()], lr=0.05)
norms = [0.0, 0.0, 0.0]
for step in range(ITERS):
    x = torch.randn(5, 6)
    h = trunk(x)
    losses = [(head(h) - k).pow(2).mean() for k, head in enumerate(heads)]
    opt.zero_grad()
    total = [torch.zeros_like(p) for p in trunk.parameters()]
    for idx, loss in enumerate(losses):
        loss.backward(retain_graph=idx < len(losses) - 1)
        grads = [p.grad.clone() for p in trunk.parameters()]
        norms[idx] = 0.9 * norms[idx] + 0.1 * sum(g.norm().item() for g in grads)
        for t, g in zip(total, grads):
            t += g / (norms[idx] + 1e-5)
        for p in trunk.parameters():
            p.grad = None
    for p, t in zip(trunk.parameters(), total):
        p.grad = t
    opt.step()
    print(step, " ".join(f"{loss.item():.6f}" for loss in losses))
print(f"checksum {sum(p.sum().item() for p in trunk.parameters()):.6f} {sum(norms):.6f}")
