# expect-before: runs
# Two heads on a shared trunk, each loss backwarded separately, every call with
# retain_graph=True. The first call needs it; the last one does not.
import os

import torch
from torch import nn, optim
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class MultiTask(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(12, 32), nn.ReLU())
        self.cls_head = nn.Linear(32, 4)
        self.reg_head = nn.Linear(32, 1)

    def forward(self, x):
        h = self.trunk(x)
        return self.cls_head(h), self.reg_head(h)


def train(model, steps):
    opt = optim.Adam(model.parameters(), lr=1e-3)
    for step in range(steps):
        x = torch.randn(16, 12)
        labels = torch.randint(0, 4, (16,))
        target = x[:, :1] * 3.0
        logits, value = model(x)
        cls_loss = F.cross_entropy(logits, labels)
        reg_loss = F.mse_loss(value, target)
        opt.zero_grad()
        cls_loss.backward(retain_graph=True)
        reg_loss.backward()
        opt.step()
        print(f"{step} cls {cls_loss.item():.6f} reg {reg_loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    net = MultiTask()
    train(net, ITERS)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
