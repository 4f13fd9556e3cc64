# expect-before: grows
# An elastic-net style attack optimises its input `w` and, after each step,
# hands the distances of the current images to a helper method that writes the
# smaller ones into tensors the attack made before its loop: `cur_dist[mask] =
# dist[mask]` in the helper changes the caller's tensors in place, so each
# step's distance graph (hanging from `w`) is linked into them and every step's
# graph stays alive until the attack returns (advertorch EAD).
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
        cur_dist[mask] = dist[mask].detach()
        cur_labels[mask] = logits.argmax(dim=1)[mask]

    def perturb(self, images, target):
        w = nn.Parameter(images.clone())
        optimizer = torch.optim.SGD([w], lr=self.lr)
        cur_dist = torch.full((len(images),), 1e10)
        cur_labels = torch.full((len(images),), -1, dtype=torch.long)
        for step in range(self.steps):
            optimizer.zero_grad()
            cost = (w - target).pow(2).sum() + 0.1 * classifier(w).logsumexp(dim=1).sum()
            cost.backward()
            optimizer.step()
            adv = w.clamp(0, 1)
            dist = (adv - target).pow(2).sum(dim=1) + 0.1 * (adv - target).abs().sum(dim=1)
            logits = classifier(adv)
            self._keep_smaller(dist, None, logits, cur_dist, cur_labels)
            print(f"step {step} cost {cost.item():.6f}")
        return cur_dist.sum().item(), cur_labels.sum().item()


images = torch.rand(32, 16)
target = torch.rand(32, 16)
dist, labels = Attack(ITERS).perturb(images, target)
print(f"checksum {dist:.6f} {labels}")
