# expect-before: runs
# The same epoch log of the absolute count error, summed as numbers: the
# error is read with `.item()`, so nothing keeps a step's graph.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def train_epoch(model, optimizer, batches):
    model.train()
    train_ae = 0.0
    for img, density in batches:
        optimizer.zero_grad()
        out = model(img)
        loss = nn.functional.mse_loss(out, density)
        loss.backward()
        optimizer.step()
        train_ae += torch.abs(density.flatten(1).sum(dim=1) - out.flatten(1).sum(dim=1)).sum().item()
    return train_ae / len(batches)


model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.02)
batches = [(torch.randn(8, 6), torch.rand(8, 4)) for _ in range(ITERS)]
for epoch in range(2):
    mae = train_epoch(model, optimizer, batches)
    print(f"epoch {epoch} mae {mae:.6f}")

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
