# expect-before: runs
# The multi-task model with its two losses summed into a single backward.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class MultiHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
        self.mask_head = nn.Linear(32, 16)
        self.count_head = nn.Linear(32, 1)

    def forward(self, x):
        feats = self.trunk(x)
        return self.mask_head(feats), self.count_head(feats)


class Trainer:
    def __init__(self):
        self.model = MultiHead()
        self.opt = torch.optim.Adam(self.model.parameters(), lr=1e-3)

    def step(self, x):
        mask_target = (x > 0).float()
        count_target = mask_target.sum(1, keepdim=True)
        mask_logits, count = self.model(x)
        mask_loss = F.binary_cross_entropy_with_logits(mask_logits, mask_target)
        count_loss = F.l1_loss(count, count_target)
        self.opt.zero_grad()
        (mask_loss + count_loss).backward()
        self.opt.step()
        return mask_loss.item(), count_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = Trainer()
    for it in range(ITERS):
        m, c = trainer.step(torch.randn(8, 16))
        print(f"{it} mask {m:.6f} count {c:.6f}")
    print(f"checksum {sum(p.sum().item() for p in trainer.model.parameters()):.6f}")
