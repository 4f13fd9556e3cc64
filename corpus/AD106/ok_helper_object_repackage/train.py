# expect-before: runs
# Truncated BPTT in a notebook-style script: the state is cut by
# `helper.repackage_hidden(hidden)`, a static method of the project's
# TextHelper (helpers.py) that returns `h.detach()` or a tuple of its own
# recursive calls, on an object built by one of two classes: nothing to report.
import os

import torch
import torch.nn as nn

from helpers import ImageHelper, TextHelper

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
KIND = os.environ.get("HELPER_KIND", "text")

torch.manual_seed(0)
if KIND == "image":
    helper = ImageHelper("image")
else:
    helper = TextHelper("text")
lstm = nn.LSTM(8, 16)
head = nn.Linear(16, 5)
opt = torch.optim.SGD(list(lstm.parameters()) + list(head.parameters()), lr=0.1)
chunks = [(torch.randn(6, 3, 8), torch.randint(0, 5, (6, 3))) for _ in range(ITERS)]
hidden = (torch.zeros(1, 3, 16), torch.zeros(1, 3, 16))
total = 0.0
for step in range(ITERS):
    x, y = chunks[step]
    opt.zero_grad()
    hidden = helper.repackage_hidden(hidden)
    out, hidden = lstm(x, hidden)
    loss = nn.functional.cross_entropy(head(out).reshape(-1, 5), y.reshape(-1))
    loss.backward()
    opt.step()
    total += loss.item()
print(f"total {total:.6f}")
print(f"checksum {sum(p.sum().item() for p in lstm.parameters()):.6f}")
