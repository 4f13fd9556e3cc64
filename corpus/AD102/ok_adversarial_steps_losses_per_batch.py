# expect-before: runs
# Adversarial training: for each batch, a few ascent steps move the input
# (`x_adv.data += eps * x_adv.grad.sign()`) and their losses are summed for
# the log; the list starts again for every batch and the optimizer steps once
# per batch, after the ascent loop. The in-place update is of an input made
# anew in each batch, not of a weight: the list holds one batch's few graphs,
# freed when the next batch rebinds it, so memory does not grow.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.SGD(net.parameters(), lr=0.05)
for step in range(ITERS):
    x = torch.randn(64, 16)
    y = torch.randint(0, 4, (64,))
    x_adv = x.clone().requires_grad_(True)
    ascent = []
    for k in range(3):
        loss = F.cross_entropy(net(x_adv), y)
        ascent.append(loss)
        loss.backward()
        x_adv.data += 0.01 * x_adv.grad.sign()
        x_adv.grad = None
    opt.zero_grad()
    loss = F.cross_entropy(net(x_adv.detach()), y)
    loss.backward()
    opt.step()
    print(f"{step} ascent {sum(ascent).item() / len(ascent):.6f} loss {loss.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
