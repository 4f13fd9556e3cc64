# expect-before: grows
# A Carlini-Wagner style attack optimises its input `w` with Adam and keeps the
# best adversarial images found so far by writing each step's images into a
# tensor made before the loop: `best[mask] = adv[mask]` links that step's graph
# (already backwarded) into `best`, so every step's graph stays alive and the
# returned images carry all of them (torchattacks CWL2).
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

classifier = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 5))
for p in classifier.parameters():
    p.requires_grad_(False)


def tanh_space(x):
    return 0.5 * (torch.tanh(x) + 1)


def attack(images, labels, steps, c=1.0):
    w = torch.atanh((images * 2 - 1).clamp(-0.999, 0.999)).detach()
    w.requires_grad = True
    best = images.clone().detach()
    best_dist = torch.full((len(images),), 1e10)
    optimizer = torch.optim.Adam([w], lr=0.05)
    for step in range(steps):
        adv = tanh_space(w)
        dist = (adv - images).pow(2).sum(dim=1)
        logits = classifier(adv)
        real = logits.gather(1, labels[:, None]).squeeze(1)
        other = logits.masked_fill(nn.functional.one_hot(labels, 5).bool(), -1e4).max(dim=1).values
        cost = dist.sum() + c * (real - other).clamp(min=0).sum()
        optimizer.zero_grad()
        cost.backward()
        optimizer.step()
        mask = logits.argmax(dim=1) != labels
        best_dist[mask] = dist[mask]
        best[mask] = adv[mask]
        print(f"step {step} cost {cost.item():.6f}")
    return best


images = torch.rand(32, 16)
labels = torch.randint(0, 5, (32,))
adv_images = attack(images, labels, ITERS)
print(f"checksum {adv_images.sum().item():.6f}")
