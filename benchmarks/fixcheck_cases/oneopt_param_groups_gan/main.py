import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
D = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
opt = torch.optim.Adam([
    {"params": G.parameters(), "lr": 2e-3},
    {"params": D.parameters(), "lr": 1e-3},
], betas=(0.5, 0.999))


def batches(n):
    for _ in range(n):
        yield torch.randn(16, 8) + 2.0


for step, real in enumerate(batches(6)):
    z = torch.randn(16, 4)
    fake = G(z)
    opt.zero_grad()
    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
    d_loss.backward()
    g_loss = F.softplus(-D(fake)).mean()
    g_loss.backward()
    opt.step()
    if step % 2 == 0:
        print(step, d_loss.item(), g_loss.item())
