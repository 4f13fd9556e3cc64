# expect-before: runs
# The same meta step with the inner gradients cut as meant: the container is
# rebuilt from detached tensors, and a second loop rebinds its variable to a
# detached copy that it then reads (the norm of each gradient). Nothing to report.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

net = nn.Linear(6, 3)
opt = torch.optim.SGD(net.parameters(), lr=0.1)


def run(x, weights):
    return F.linear(x, weights["weight"], weights["bias"])


for it in range(ITERS):
    x = torch.randn(8, 6)
    y = torch.randint(0, 3, (8,))
    opt.zero_grad()
    out = net(x)
    loss = F.cross_entropy(out, y)
    loss.backward(retain_graph=True)
    fast_loss = F.cross_entropy(out, torch.randint(0, 3, (8,)))
    grads = torch.autograd.grad(fast_loss, net.parameters(), create_graph=True)
    grads = [g.detach() for g in grads]
    norm = 0.0
    for grad in grads:
        grad = grad.detach()
        norm = norm + grad.norm().item()
    fast = {name: p - 0.5 * g for (name, p), g in zip(net.named_parameters(), grads)}
    meta_loss = F.mse_loss(run(x, fast), out.detach())
    meta_loss.backward()
    opt.step()
    print(f"{it} loss {loss.item():.6f} meta {meta_loss.item():.6f} norm {norm:.6f}")

print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
