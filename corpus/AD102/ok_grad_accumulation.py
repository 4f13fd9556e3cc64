# expect-before: runs
# Gradient accumulation: micro-batch losses are summed into a tensor on
# purpose, and that sum is backwarded once after the inner loop.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
ACCUM = 3


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 24), nn.GELU(), nn.Linear(24, 1))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(ITERS):
        acc = 0.0
        for micro in range(ACCUM):
            x = torch.randn(8, 6)
            y = x.mean(1, keepdim=True)
            loss = F.mse_loss(model(x), y)
            acc = acc + loss
        acc = acc / ACCUM
        opt.zero_grad()
        acc.backward()
        opt.step()
        print(f"{step} loss {acc.item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")


if __name__ == "__main__":
    main()
