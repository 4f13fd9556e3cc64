# expect-before: grows
# A held-out batch is scored after every step for logging, without
# torch.no_grad(); the running sum keeps each evaluation's graph and the
# activations it saved.
import os

import torch
from torch import nn, optim

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(iters):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(12, 48), nn.Tanh(), nn.Linear(48, 1))
    criterion = nn.MSELoss()
    opt = optim.Adam(model.parameters(), lr=1e-3)
    x_val = torch.randn(64, 12)
    y_val = x_val.sum(1, keepdim=True)
    val_total = 0.0
    for it in range(iters):
        x = torch.randn(32, 12)
        y = x.sum(1, keepdim=True)
        loss = criterion(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        val_loss = criterion(model(x_val), y_val)
        val_total += val_loss.item()
        print(f"{it} loss {loss.item():.6f} val {val_loss.item():.6f}")
    print(f"mean val {val_total / iters:.4f}")
    return model


if __name__ == "__main__":
    net = train(ITERS)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
