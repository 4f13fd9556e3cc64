# expect-before: runs
# Two independent regressors whose losses are both computed before either
# step: each optimizer owns only the model of its own loss.
import os

import torch
from torch import nn, optim
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def main():
    torch.manual_seed(0)
    price_model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1))
    volume_model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1))
    opt_price = optim.Adam(price_model.parameters(), lr=1e-3)
    opt_volume = optim.Adam(volume_model.parameters(), lr=1e-3)
    for it in range(ITERS):
        x = torch.randn(32, 5)
        price_loss = F.mse_loss(price_model(x), x[:, :1])
        volume_loss = F.l1_loss(volume_model(x), x[:, 1:2].abs())
        opt_price.zero_grad()
        price_loss.backward()
        opt_price.step()
        opt_volume.zero_grad()
        volume_loss.backward()
        opt_volume.step()
        print(f"{it} price {price_loss.item():.6f} volume {volume_loss.item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in price_model.parameters()):.6f}")


if __name__ == "__main__":
    main()
