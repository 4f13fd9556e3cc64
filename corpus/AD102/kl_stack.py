# expect-before: grows
# A distillation run logs the KL divergence to the teacher each step and
# summarises the list with torch.stack at the end: the list must hold
# tensors, but not their graphs.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

teacher = nn.Linear(16, 10)
student = nn.Sequential(nn.Linear(16, 24), nn.ReLU(), nn.Linear(24, 10))
for p in teacher.parameters():
    p.requires_grad_(False)
opt = torch.optim.SGD(student.parameters(), lr=0.5)
kls = []
for it in range(ITERS):
    x = torch.randn(32, 16)
    logits = student(x)
    soft_targets = F.softmax(teacher(x) / 2.0, dim=1)
    loss = F.cross_entropy(logits, soft_targets.argmax(1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    kl = F.kl_div(F.log_softmax(logits / 2.0, dim=1), soft_targets, reduction="batchmean")
    kls.append(kl)
    print(f"{it} loss {loss.item():.6f} kl {kl.item():.6f}")

kl_curve = torch.stack(kls)
print(f"kl first {kl_curve[0].item():.6f} last {kl_curve[-1].item():.6f}")
print(f"checksum {sum(p.sum().item() for p in student.parameters()):.6f}")
