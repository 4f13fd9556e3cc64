# expect-before: runs
# The actions a policy samples are kept for the whole run: samples carry no
# graph (`Categorical(...).sample()`, `torch.multinomial`, `torch.bernoulli`),
# so the lists hold plain integer tensors, not graphs.
import os

import torch
import torch.nn as nn
from torch.distributions import Categorical

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

policy = nn.Linear(4, 3)
opt = torch.optim.SGD(policy.parameters(), lr=0.05)
actions, picks, flips = [], [], []

for step in range(ITERS):
    obs = torch.randn(8, 4)
    logits = policy(obs)
    dist = Categorical(logits=logits)
    action = dist.sample()
    pick = torch.multinomial(logits.softmax(-1), 1)
    flip = torch.bernoulli(logits.sigmoid())
    loss = -(dist.log_prob(action) * (action == 1).float()).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    actions.append(action)
    picks.append(pick)
    flips.append(flip)
    print(f"{step} loss {loss.item():.6f}")

print(f"actions {sum(int(a.sum()) for a in actions)} picks {sum(int(p.sum()) for p in picks)}")
print(f"checksum {sum(p.sum().item() for p in policy.parameters()):.6f}")
