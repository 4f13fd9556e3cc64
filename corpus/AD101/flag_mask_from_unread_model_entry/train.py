# expect-before: runs
# A multi-task step that takes one gradient per task: each task runs the shared
# encoder again with the dropout mask the encoder handed back for this batch.
# The encoder (picked by a factory in another file, out of a dict) draws the
# mask under no graph and hands it back as given, so no backward reaches an
# earlier one's freed graph. The analysis does not follow the dict to the
# class, so it reports the carried mask with no fix, and the message says that
# its graph is inferred.
import os

import torch

import selector

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

tasks = ["a", "b"]
nets = selector.build(tasks)
params = []
for name in nets:
    params += nets[name].parameters()
opt = torch.optim.SGD(params, lr=0.1)

for step in range(ITERS):
    x = torch.randn(8, 4)
    y = {t: torch.randn(8, 1) for t in tasks}
    mask = None
    norms = {}
    for t in tasks:
        opt.zero_grad()
        rep, mask = nets["rep"](x, mask)
        out, _ = nets[t](rep, None)
        loss = (out - y[t]).pow(2).mean()
        loss.backward()
        norms[t] = sum(float(p.grad.norm()) for p in nets["rep"].parameters())
    opt.zero_grad()
    rep, _ = nets["rep"](x, mask)
    total = sum((nets[t](rep, None)[0] - y[t]).pow(2).mean() / (1.0 + norms[t]) for t in tasks)
    total.backward()
    opt.step()

print(f"{ITERS} steps, last loss {total.item():.6f}")
