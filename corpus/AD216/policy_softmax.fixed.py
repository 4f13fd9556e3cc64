# expect-before: runs
# A REINFORCE policy from 2017: F.softmax without dim on a 2-D batch of
# logits (PyTorch picks dim 1, with a deprecation warning).
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
policy = nn.Linear(4, 3)
opt = torch.optim.SGD(policy.parameters(), lr=0.1)
for it in range(ITERS):
    obs = torch.randn(8, 4)
    logits = policy(obs).view(8, 3)
    probs = F.softmax(logits, dim=1)
    logp = F.log_softmax(logits.view(8, 3), dim=1)
    actions = probs.argmax(1)
    loss = -logp.gather(1, actions.unsqueeze(1)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("%.6f %.6f" % (loss.item(), probs.sum().item()))
