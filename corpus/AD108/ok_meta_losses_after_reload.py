# expect-before: runs
# The shape of flag_meta_losses_after_reload, written for current PyTorch:
# each task's query-loss gradients are taken right after its adaptation,
# before `load_state_dict` restores the weights, summed into a meta-gradient
# and applied by the meta optimizer. No graph outlives the reload.
import copy
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def adapt(model, optimizer, x, y):
    for _ in range(2):
        optimizer.zero_grad()
        (model(x) - y).pow(2).mean().backward()
        optimizer.step()
    return (model(x) - y).pow(2).mean()


net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
inner = torch.optim.SGD(net.parameters(), lr=0.1)
meta = torch.optim.Adam(net.parameters(), lr=0.01)
for it in range(ITERS):
    start = copy.deepcopy(net.state_dict())
    meta_grads = [torch.zeros_like(p) for p in net.parameters()]
    total = 0.0
    for task in range(3):
        loss = adapt(net, inner, torch.randn(5, 4), torch.randn(5, 1))
        grads = torch.autograd.grad(loss, list(net.parameters()))
        meta_grads = [m + g for m, g in zip(meta_grads, grads)]
        total += loss.item()
        net.load_state_dict(start)
    meta.zero_grad()
    for p, g in zip(net.parameters(), meta_grads):
        p.grad = g
    meta.step()
    print(f"{it} loss {total:.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
