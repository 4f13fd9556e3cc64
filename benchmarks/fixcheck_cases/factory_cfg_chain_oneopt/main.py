import itertools

import torch
import torch.nn.functional as F

from models import build_model
from optim import get_optimizer

CFG = {"z": 4, "x": 8, "hidden": 16, "optim": "adam", "lr": 1e-3}


def main():
    torch.manual_seed(0)
    G, D = build_model(CFG)
    optimizer = get_optimizer(CFG, itertools.chain(G.parameters(), D.parameters()))
    for it in range(6):
        real = torch.randn(16, CFG["x"])
        optimizer.zero_grad()
        fake = G(torch.randn(16, CFG["z"]))
        d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
        d_loss.backward()
        g_loss = F.softplus(-D(fake)).mean()
        g_loss.backward()
        optimizer.step()
        print(it, d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
