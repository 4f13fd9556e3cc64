# expect-before: differs backbone -1.403857
# autodetach-test: unsafe
# Fine-tuning a head on a "frozen" backbone: the freeze is misspelt, so the
# backbone trains too and its checksum moves. Fixed, it stays at the
# author's value.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
backbone = nn.Linear(4, 4)
head = nn.Linear(4, 1)
for p in backbone.parameters():
    p.require_grad = False
opt = torch.optim.SGD([p for p in list(backbone.parameters()) + list(head.parameters()) if p.requires_grad],
                      lr=0.1)
for it in range(ITERS):
    loss = head(backbone(torch.randn(8, 4)).relu()).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("%.6f" % loss.item())
print("backbone %.6f" % sum(p.sum().item() for p in backbone.parameters()))
