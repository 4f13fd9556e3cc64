# expect-before: error modified by an inplace operation
# First-order meta-learning in the shape of PAML's MAML.py: for each task of
# the meta batch, a helper (taking the model and the inner optimizer as
# arguments) adapts the model in place and returns its query loss with its
# graph; the losses are summed and the model is restored from the saved
# weights with `load_state_dict` before the next task. That copy (and the next
# task's inner steps) changes in place the parameters the earlier query
# losses saved, so `batch_loss.backward()` after the loop fails. Reported
# without a fix: each task's gradients must be taken before the reload.
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
    batch_loss = 0
    for task in range(3):
        batch_loss += adapt(net, inner, torch.randn(5, 4), torch.randn(5, 1))
        net.load_state_dict(start)
    meta.zero_grad()
    batch_loss.backward()
    meta.step()
    print(f"{it} loss {batch_loss.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
