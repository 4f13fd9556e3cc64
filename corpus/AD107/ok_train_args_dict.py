# expect-before: runs
# The epoch function's arguments are collected once in a dict, before the
# epoch loop, and passed with `**train_args` (FixMatch-style training code):
# the dict holds the objects (model, optimizer, loss, pseudo-labeller,
# loader), not a tensor computed from them. Every call of the model or of
# the labeller inside builds a fresh graph, so nothing built before the loop
# is backwarded twice.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class LabelGuesser:
    def __init__(self, thresh):
        self.thresh = thresh

    def __call__(self, model, x):
        with torch.no_grad():
            probs = F.softmax(model(x), dim=1)
            scores, labels = probs.max(dim=1)
        return labels, scores > self.thresh


def train_one_epoch(model, criterion, optim, guesser, loader, weight, n_iters):
    total = 0.0
    batches = iter(loader)
    for _ in range(n_iters):
        x, y, u = next(batches)
        labels_u, keep = guesser(model, u)
        loss = criterion(model(x), y)
        if keep.any():
            loss = loss + weight * criterion(model(u[keep]), labels_u[keep])
        optim.zero_grad()
        loss.backward()
        optim.step()
        total += loss.item()
    return total / n_iters


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3))
    optim = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = [(torch.randn(8, 5), torch.randint(0, 3, (8,)), torch.randn(8, 5)) for _ in range(3)]
    criterion = nn.CrossEntropyLoss()
    guesser = LabelGuesser(0.4)
    train_args = dict(
        model=model,
        criterion=criterion,
        optim=optim,
        guesser=guesser,
        loader=loader,
        weight=0.5,
        n_iters=3,
    )
    for epoch in range(ITERS):
        print(f"{epoch} loss {train_one_epoch(**train_args):.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
