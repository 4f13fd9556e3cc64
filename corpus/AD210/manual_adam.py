# expect-before: runs
# A 0.3-era hand-written optimizer: the scalar comes first in add_/addcmul_/addcdiv_.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 12), nn.Tanh(), nn.Linear(12, 1))
x = torch.randn(32, 6)
y = torch.randn(32, 1)
lr, beta1, beta2, eps = 0.01, 0.9, 0.999, 1e-8
state = {p: (torch.zeros_like(p), torch.zeros_like(p)) for p in model.parameters()}

for step in range(1, ITERS + 1):
    model.zero_grad()
    loss = (model(x) - y).pow(2).mean()
    loss.backward()
    for p in model.parameters():
        exp_avg, exp_avg_sq = state[p]
        exp_avg.mul_(beta1).add_(1 - beta1, p.grad.data)
        exp_avg_sq.mul_(beta2).addcmul_(1 - beta2, p.grad.data, p.grad.data)
        denom = exp_avg_sq.sqrt().add_(eps)
        step_size = lr * (1 - beta2 ** step) ** 0.5 / (1 - beta1 ** step)
        p.data.addcdiv_(
            -step_size,  # the Adam step
            exp_avg,
            denom,
        )
        p.data.add_(-lr * 0.01, p.data)  # weight decay
    print("step %d loss %.6f" % (step, loss.item()))
print("checksum %.6f" % sum(p.sum().item() for p in model.parameters()))
