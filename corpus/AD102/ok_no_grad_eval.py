# expect-before: runs
# Evaluation under torch.no_grad(): the tensor accumulators carry no graph.
import os

import torch
from torch import nn, optim

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def evaluate(model, batches, criterion):
    model.eval()
    total = torch.zeros(())
    losses = []
    with torch.no_grad():
        for x, y in batches:
            loss = criterion(model(x), y)
            total += loss
            losses.append(loss)
    model.train()
    return total.item() / len(batches), torch.stack(losses).max().item()


def train(iters):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(12, 48), nn.Tanh(), nn.Linear(48, 1))
    criterion = nn.MSELoss()
    opt = optim.Adam(model.parameters(), lr=1e-3)
    val = [(x, x.sum(1, keepdim=True)) for x in torch.randn(3, 16, 12)]
    for epoch in range(iters):
        x = torch.randn(32, 12)
        loss = criterion(model(x), x.sum(1, keepdim=True))
        opt.zero_grad()
        loss.backward()
        opt.step()
        mean_val, worst_val = evaluate(model, val, criterion)
        print(f"{epoch} loss {loss.item():.6f} val {mean_val:.6f} worst {worst_val:.6f}")
    return model


if __name__ == "__main__":
    net = train(ITERS)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
