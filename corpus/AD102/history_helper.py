# expect-before: runs
# The loss history goes to a helper in the same file that summarises it with
# torch.stack: a use after the loop, in another function, that needs tensors.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def summarize(history):
    curve = torch.stack(history)
    return curve.min().item(), curve.std().item()


def train(iters):
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 20), nn.Tanh(), nn.Linear(20, 1))
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    history = []
    for step in range(iters):
        x = torch.randn(32, 6)
        y = x[:, :1] - 0.5 * x[:, 1:2]
        loss = F.mse_loss(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append(loss)
        print(f"{step} loss {loss.item():.6f}")
    best, spread = summarize(history)
    print(f"best {best:.6f} spread {spread:.6f}")
    return net


if __name__ == "__main__":
    model = train(ITERS)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
