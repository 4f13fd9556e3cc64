# expect-before: grows
# A notebook-style classifier loop logs two statistics of the step beside the
# loss: the mean top-class probability (appended to a list) and the mean
# entropy of the predictions (a running total). Both are whole reductions of
# values computed from the network's output, which the step's backward walks,
# so each carries the step's graph; the backward frees only what it walks, not
# the statistics' own saved tensors, and the list and the total keep every
# step's graph alive. Both are only printed.
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
    ent = -(probs * probs.clamp_min(1e-8).log()).sum(-1)
    loss = F.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    confidences.append(probs.max(-1)[0].mean())
    entropy_total += ent.mean()
print(f"confidence {sum(confidences) / len(confidences):.6f} entropy {entropy_total / ITERS:.6f} over {ITERS} steps")
