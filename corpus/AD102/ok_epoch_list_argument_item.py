# expect-before: runs
# The same epoch function appending the epoch's last loss to the caller's list
# as a number (`.item()`), a step that backwards with `retain_graph=True` and
# hands the list back to a caller that backwards what it keeps, and a step
# whose every call is handed a new list (`kept = []` just before the call):
# no list keeps a graph past its use.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(model, optimizer, batches, train_losses):
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
    train_losses.append(loss.item())


def probe(model, x, kept):
    loss = model(x).pow(2).mean()
    loss.backward(retain_graph=True)
    kept.append(loss)


def logged_step(model, optimizer, x, log):
    optimizer.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    optimizer.step()
    log.append(loss)


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = [(torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(3)]
    train_losses = []
    for epoch in range(ITERS):
        train(model, optimizer, batches, train_losses)
        kept = []
        probe(model, batches[0][0], kept)
        optimizer.zero_grad()
        (2 * kept[0]).backward()
        optimizer.step()
        log = []
        logged_step(model, optimizer, batches[1][0], log)
        print(f"step loss {log[0].item():.6f}")
    print(f"epochs {ITERS} last loss {train_losses[-1]:.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")


if __name__ == "__main__":
    main()
