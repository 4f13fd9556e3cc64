# expect-before: runs
# The attack of attack_best_written_by_helper, but the tensors the helper
# writes into are made anew at every step and read only as numbers: what a
# step links into them dies with the step.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

classifier = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 5))
for p in classifier.parameters():
    p.requires_grad_(False)


class Attack:
    def __init__(self, steps, lr=0.05):
        self.steps = steps
        self.lr = lr

    def _keep_smaller(self, dist, labels, logits, cur_dist, cur_labels):
        mask = dist < cur_dist
        cur_dist[mask] = dist[mask]
        cur_labels[mask] = logits.argmax(dim=1)[mask]

    def perturb(self, images, target):
        w = nn.Parameter(images.clone())
        optimizer = torch.optim.SGD([w], lr=self.lr)
        total = 0.0
        for step in range(self.steps):
            optimizer.zero_grad()
            cost = (w - target).pow(2).sum() + 0.1 * classifier(w).logsumexp(dim=1).sum()
            cost.backward()
            optimizer.step()
            adv = w.clamp(0, 1)
            dist = (adv - target).pow(2).sum(dim=1) + 0.1 * (adv - target).abs().sum(dim=1)
            logits = classifier(adv)
            cur_dist = torch.full((len(images),), 4.0)
            cur_labels = torch.full((len(images),), -1, dtype=torch.long)
            self._keep_smaller(dist, None, logits, cur_dist, cur_labels)
            total += cur_dist.sum().item()
            print(f"step {step} cost {cost.item():.6f}")
        return total, cur_labels.sum().item()


images = torch.rand(32, 16)
target = torch.rand(32, 16)
dist, labels = Attack(ITERS).perturb(images, target)
print(f"checksum {dist:.6f} {labels}")
