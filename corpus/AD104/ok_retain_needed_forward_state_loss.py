# expect-before: runs
# The model's forward keeps its logits on `self`; `get_loss()` reads them, so
# the first loss hangs from the forward's graph, which the second backward
# walks again: the first backward must keep it.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 16)
        self.head = nn.Linear(16, 3)
        self.logits = {}

    def forward(self, x):
        h = torch.tanh(self.body(x))
        self.logits["tag"] = self.head(h)
        return h

    def get_loss(self, y):
        return F.cross_entropy(self.logits["tag"], y)


model = Tagger()
opt = torch.optim.SGD(model.parameters(), lr=0.1)

for step in range(ITERS):
    x, y = torch.randn(8, 6), torch.randint(0, 3, (8,))
    opt.zero_grad()
    h = model(x)
    tag_loss = model.get_loss(y)
    tag_loss.backward(retain_graph=True)
    reg = h.pow(2).mean()
    reg.backward()
    opt.step()
    print(f"{step} {tag_loss.item():.6f} {reg.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
