# expect-before: runs
# The notebook-style classifier loop again, its statistics taken under
# `torch.no_grad()`: the reductions record no graph, so the list and the
# running total hold tensors without one, whatever the network's output
# carried.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
net = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.SGD(net.parameters(), lr=0.05)
confidences = []
entropy_total = 0.0
for step in range(ITERS):
    x, y = torch.randn(16, 6), torch.randint(0, 4, (16,))
    logits = net(x)
    probs = logits.softmax(-1)
    loss = F.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        ent = -(probs * probs.clamp_min(1e-8).log()).sum(-1)
        confidences.append(probs.max(-1)[0].mean())
        entropy_total += ent.mean()
print(f"confidence {sum(confidences) / len(confidences):.6f} entropy {entropy_total / ITERS:.6f} over {ITERS} steps")
