# expect-before: runs
# The nearest shape that does leak: the running total is reset every epoch,
# but the optimizer steps inside the inner loop, so the sum links the graphs
# of every step of the epoch (the nodes pile up for the whole epoch).
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
EPOCHS = 2


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 24), nn.ReLU(), nn.Linear(24, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(EPOCHS):
        epoch_loss = 0
        for it in range(ITERS):
            x = torch.randn(8, 6)
            loss = F.mse_loss(model(x), x.mean(1, keepdim=True))
            opt.zero_grad()
            loss.backward()
            opt.step()
            epoch_loss += loss
        print(f"{epoch} loss {epoch_loss.item() / ITERS:.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")


if __name__ == "__main__":
    main()
