# expect-before: runs
# A NeuralUCB-style exploration bonus: the gradient of the network's output for
# each action scores how unsure the model is. With one output shared by every
# action the first arm backwards it once, with retain_graph=True; the other arm
# (one output per action) backwards each output in turn. The two arms never run
# in one pass, and each pass builds its own graph, so the first arm's retain
# keeps the graph for nothing until the next pass replaces it.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

torch.manual_seed(0)
body = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
head = nn.Linear(8, 1)
n_actions = 3
total = 0.0
for step in range(ITERS):
    x = torch.randn(1, 4)
    out = head(body(x)).reshape(-1)
    if out.numel() == 1 and n_actions > 1:
        body.zero_grad()
        head.zero_grad()
        out[0].backward(retain_graph=True)
        g = torch.cat([p.grad.detach().flatten() for p in head.parameters()])
        grads = g.repeat(n_actions, 1)
    else:
        rows = []
        for k in range(out.numel()):
            head.zero_grad()
            out[k].backward(retain_graph=k < out.numel() - 1)
            rows.append(torch.cat([p.grad.detach().flatten() for p in head.parameters()]))
        grads = torch.stack(rows)
    with torch.no_grad():
        bonus = grads.pow(2).sum(dim=1).sqrt()
        values = out.expand(n_actions) + 0.1 * bonus
    total += values.max().item()
    print(f"{step} {values.max().item():.6f}")
print(f"checksum {total:.6f} over {ITERS}")
