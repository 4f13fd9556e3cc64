# AMP with one GradScaler per network (as some GAN code does). The D backward,
# through scaler_d.scale(d_loss), frees G's graph; G's gradients from it are
# zeroed before G's step. Correct: D(fake.detach()) in the D loss (AD103) or
# retain_graph=True on the D backward; both match the reference.
import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
    scaler_g = torch.amp.GradScaler("cpu")
    scaler_d = torch.amp.GradScaler("cpu")
    for step in range(6):
        real = torch.randn(16, 8)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            fake = G(torch.randn(16, 4))
            d_loss = F.softplus(-D(real)).float().mean() + F.softplus(D(fake)).float().mean()
        opt_d.zero_grad()
        scaler_d.scale(d_loss).backward()
        scaler_d.step(opt_d)
        scaler_d.update()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            g_loss = F.softplus(-D(fake)).float().mean()
        opt_g.zero_grad()
        scaler_g.scale(g_loss).backward()
        scaler_g.step(opt_g)
        scaler_g.update()
    print(d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
