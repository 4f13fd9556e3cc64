# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A smoothness term ties each prediction to the previous step's prediction,
# which is kept with its graph in `prev`.
import os

import torch
from torch import nn, optim

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(model, steps):
    opt = optim.Adam(model.parameters(), lr=1e-2)
    criterion = nn.MSELoss()
    prev = torch.zeros(16, 2)
    for step in range(steps):
        x = torch.randn(16, 3)
        y = torch.randn(16, 2)
        out = model(x)
        loss = criterion(out, y) + 0.01 * (out - prev).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        prev = out.detach()
        print(f"{step} loss {loss.item():.6f}")
    return model


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 12), nn.ReLU(), nn.Linear(12, 2))
    train(net, ITERS)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
