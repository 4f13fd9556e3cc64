# expect-before: runs
# An ensemble of critics, each with its own optimizer: the losses are built in
# one list comprehension, then a loop backwards each and steps its optimizer.
# Every element is a graph of its own (the input carries none), so no
# backward frees what another needs: nothing is reported.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(critics, opts, batches):
    for x, y in batches:
        losses = [nn.functional.mse_loss(c(x), y) for c in critics]
        for loss, opt in zip(losses, opts):
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(" ".join(f"{loss.item():.6f}" for loss in losses))


if __name__ == "__main__":
    torch.manual_seed(0)
    critics = [nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1)) for _ in range(3)]
    opts = [torch.optim.SGD(c.parameters(), lr=0.05) for c in critics]
    batches = [(torch.randn(16, 5), torch.randn(16, 1)) for _ in range(ITERS)]
    train(critics, opts, batches)
    print(f"checksum {sum(p.sum().item() for c in critics for p in c.parameters()):.6f}")
