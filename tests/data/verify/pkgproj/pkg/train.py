import os

import torch

from .engine import train
from .losses import criterion

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def main():
    torch.manual_seed(0)
    model = torch.nn.Linear(5, 3)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    print("total %.6f" % float(train(model, opt, ITERS)))
    losses = []
    for _ in range(ITERS):
        loss = criterion(model(torch.randn(8, 5)), torch.randint(0, 3, (8,)))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss)
    print("last %.6f" % losses[-1].item())
    print("checksum %.6f" % sum(p.sum().item() for p in model.parameters()))


if __name__ == "__main__":
    main()
