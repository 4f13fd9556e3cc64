# expect-before: grows
# A counting model's training loop also sums the absolute count error of
# each batch for the epoch log. The error is computed from the network's
# output, so the running tensor keeps every step's error graph (and the
# tensors it saved) until the epoch ends: a logged total, like a loss
# total, kept with its graph.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def train_epoch(model, optimizer, batches):
    model.train()
    train_ae = torch.tensor(0.0)
    for img, density in batches:
        optimizer.zero_grad()
        out = model(img)
        loss = nn.functional.mse_loss(out, density)
        loss.backward()
        optimizer.step()
        train_ae += torch.abs(density.flatten(1).sum(dim=1) - out.flatten(1).sum(dim=1)).sum()
    return train_ae / len(batches)


model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.02)
batches = [(torch.randn(8, 6), torch.rand(8, 4)) for _ in range(ITERS)]
mae = train_epoch(model, optimizer, batches)
print(f"epoch 0 mae {mae.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
