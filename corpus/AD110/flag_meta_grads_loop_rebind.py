# expect-before: runs
# A meta-learning step means to take a first-order approximation: it detaches
# the inner gradients with `grad = grad.detach()` in a loop over them. That
# rebinds the loop variable only; `grads` keeps the tensors that
# create_graph=True built, so the fast weights and the meta loss still
# differentiate through the second-order graph. AD110 reports the line without
# a fix: rebuilding `grads` detached would change the meta gradients.
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
    for grad in grads:
        grad = grad.detach()
        grad.requires_grad = False
    fast = {name: p - 0.5 * g for (name, p), g in zip(net.named_parameters(), grads)}
    meta_loss = F.mse_loss(run(x, fast), out.detach())
    meta_loss.backward()
    opt.step()
    print(f"{it} loss {loss.item():.6f} meta {meta_loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
