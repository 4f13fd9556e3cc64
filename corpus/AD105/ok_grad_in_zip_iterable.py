# expect-before: runs
# A hand-written SGD step: the gradients come from one torch.autograd.grad call
# written inside the `zip(...)` a for loop iterates. The iterable is evaluated
# once, before the loop's first pass, so the graph of `loss` is walked once per
# batch and nothing needs it again: no retain_graph is missing.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def sgd_step(model, batch, lr=0.1):
    x, y = batch
    loss = (model(x) - y).pow(2).mean()
    params = [p for p in model.parameters() if p.requires_grad]
    for p, g in zip(params, torch.autograd.grad(loss, params)):
        with torch.no_grad():
            p.sub_(lr * g)
    return loss.item()


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
data = [(torch.randn(6, 4), torch.randn(6, 1)) for _ in range(ITERS)]
for step in range(ITERS):
    for i, (name, g) in enumerate(zip(["w"], torch.autograd.grad(net(data[step][0]).sum(), [net[0].weight]))):
        print(name, i, f"{g.norm().item():.6f}")
    print(f"{step} loss {sgd_step(net, data[step]):.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
