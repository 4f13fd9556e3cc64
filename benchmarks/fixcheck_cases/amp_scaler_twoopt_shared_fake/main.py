# One GradScaler (disabled on CPU, same code path) stepping two optimizers:
# scaler.scale(d_loss).backward(), scaler.step(opt_d), then the G step
# reuses `fake`; scaler.update() once per iteration. opt_g.zero_grad() comes
# right before the G backward, so D(fake.detach()) is the right fix.
import torch
import torch.nn as nn
import torch.nn.functional as F

from models import build


def main():
    torch.manual_seed(0)
    G, D = build()
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu", enabled=False)
    for step in range(6):
        real = torch.randn(16, 8)
        with torch.autocast("cpu", enabled=False):
            fake = G(torch.randn(16, 4))
            d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
        opt_d.zero_grad()
        scaler.scale(d_loss).backward()
        scaler.step(opt_d)
        with torch.autocast("cpu", enabled=False):
            g_loss = F.softplus(-D(fake)).mean()
        opt_g.zero_grad()
        scaler.scale(g_loss).backward()
        scaler.step(opt_g)
        scaler.update()
    print(d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
