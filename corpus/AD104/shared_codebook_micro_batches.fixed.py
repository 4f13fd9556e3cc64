# expect-before: runs
# Gradient accumulation with a codebook normalised once per optimizer step,
# before the micro-batch loop: every micro-batch backward walks the shared
# normalisation graph again, so each keeps it for the next micro-batch. The
# last one has no next: after the loop the optimizer steps and the next step
# normalises the codebook anew, so its retain only keeps the normalisation
# and the last micro-batch's graph alive until then. Retain on every
# micro-batch but the last.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
MICRO = 3

torch.manual_seed(0)
encoder = nn.Linear(8, 6)
codebook_param = nn.Parameter(torch.randn(5, 6))
opt = torch.optim.SGD(list(encoder.parameters()) + [codebook_param], lr=0.1)

for step in range(ITERS):
    opt.zero_grad()
    codebook = F.normalize(codebook_param, dim=1)
    total = 0.0
    for micro in range(MICRO):
        x = torch.randn(12, 8)
        labels = torch.randint(0, 5, (12,))
        logits = F.normalize(encoder(x), dim=1) @ codebook.t() * 5.0
        loss = F.cross_entropy(logits, labels) / MICRO
        loss.backward(retain_graph=micro < MICRO - 1)
        total += loss.item()
    opt.step()
    print(f"{step} loss {total:.6f}")

print(f"checksum {codebook_param.sum().item() + encoder.weight.sum().item():.6f}")
