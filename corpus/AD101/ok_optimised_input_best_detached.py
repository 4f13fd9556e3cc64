# expect-before: runs
# The same attack shape, optimising its input `w` with Adam, keeps only cut
# values across steps: the best images are chosen from `adv.detach()`, the
# snapshots of `w` are detached copies and the costs are numbers. Nothing that
# outlives a step holds its graph.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

classifier = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 5))
for p in classifier.parameters():
    p.requires_grad_(False)


def attack(images, labels, steps, c=1.0):
    w = images.clone().detach().requires_grad_()
    best = images.clone().detach()
    snapshots, costs = [], []
    optimizer = torch.optim.Adam([w], lr=0.05)
    for step in range(steps):
        adv = torch.sigmoid(w)
        logits = classifier(adv)
        cost = (adv - images).pow(2).sum() + c * nn.functional.cross_entropy(logits, labels, reduction="sum").neg()
        optimizer.zero_grad()
        cost.backward()
        optimizer.step()
        mask = logits.argmax(dim=1) != labels
        best = torch.where(mask[:, None], adv.detach(), best)
        snapshots.append(w.detach().clone())
        costs.append(cost.item())
        print(f"step {step} cost {costs[-1]:.6f}")
    return best, snapshots


images = torch.rand(32, 16)
labels = torch.randint(0, 5, (32,))
adv_images, kept = attack(images, labels, ITERS)
print(f"checksum {adv_images.sum().item():.6f} {len(kept)}")
