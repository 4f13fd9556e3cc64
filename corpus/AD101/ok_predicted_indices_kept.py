# expect-before: runs
# Predicted classes are kept across the epoch to count the errors at its end:
# indices carry no graph (`out.max(1)[1]`, the second value of `topk`, an
# integer tensor from `.to(torch.long)`), unlike the values beside them.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

net = nn.Linear(6, 4)
opt = torch.optim.SGD(net.parameters(), lr=0.05)
preds, top2, rounded = [], [], []

for step in range(ITERS):
    x = torch.randn(8, 6)
    y = torch.randint(0, 4, (8,))
    out = net(x)
    loss = F.cross_entropy(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    preds.append(out.max(1)[1])
    _, best = out.topk(2)
    top2.append(best)
    rounded.append((out * 2).to(torch.long))
    print(f"{step} loss {loss.item():.6f}")

correct = sum(int((p == 0).sum()) for p in preds)
print(f"correct {correct} top2 {sum(int(b.sum()) for b in top2)} rounded {sum(int(r.sum()) for r in rounded)}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
