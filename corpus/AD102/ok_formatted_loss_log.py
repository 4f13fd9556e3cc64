# expect-before: runs
# A training loop that logs each step's loss as text: `'%.4f' % loss` is a
# string, so the list of log lines keeps no graph (a `.detach()` there would
# fail: strings have none).
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(model, optimizer, batches):
    losses = []
    for x, y in batches:
        recon = model(x)
        loss = ((recon - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append('%.4f' % loss)
    return losses


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 6))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    batches = [(torch.randn(8, 6), torch.randn(8, 6)) for _ in range(ITERS)]
    print("\t".join(train(model, opt, batches)))
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")


if __name__ == "__main__":
    main()
