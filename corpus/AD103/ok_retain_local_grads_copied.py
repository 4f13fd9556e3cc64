# expect-before: runs
# An A3C-style worker: a local copy of the shared model runs two losses over
# one trunk (`retain_graph=True` on the first), then its gradients are copied
# to the shared model, whose optimizer steps, and the local ones are zeroed.
# The first pass's gradients into the trunk are used through the copy, so
# cutting the trunk on it would change the shared model's updates. Nothing
# to report.
import copy
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(6, 8)
        self.policy = nn.Linear(8, 3)
        self.value = nn.Linear(8, 1)


shared = Net()
local = copy.deepcopy(shared)
opt = torch.optim.SGD(shared.parameters(), lr=0.05)

for step in range(ITERS):
    local.load_state_dict(shared.state_dict())
    x = torch.randn(16, 6)
    feats = torch.tanh(local.trunk(x))
    policy_loss = -torch.log_softmax(local.policy(feats), dim=1)[:, 0].mean()
    policy_loss.backward(retain_graph=True)
    value_loss = (local.value(feats) - 1.0).pow(2).mean()
    value_loss.backward()
    for shared_p, local_p in zip(shared.parameters(), local.parameters()):
        shared_p.grad = local_p.grad.clone()
    opt.step()
    opt.zero_grad()
    local.zero_grad()

print(f"{sum(p.sum().item() for p in shared.parameters()):.6f}")
