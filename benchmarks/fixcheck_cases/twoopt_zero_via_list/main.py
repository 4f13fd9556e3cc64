import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt_G = torch.optim.SGD(G.parameters(), lr=0.05)
opt_D = torch.optim.SGD(D.parameters(), lr=0.05)
optimizers = [opt_G, opt_D]
for i in range(6):
    for o in optimizers:
        o.zero_grad()
    real = torch.randn(16, 8)
    fake = G(torch.randn(16, 4))
    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
    d_loss.backward()
    opt_D.step()
    g_loss = F.softplus(-D(fake)).mean()
    g_loss.backward()
    opt_G.step()
print(d_loss.item(), g_loss.item())
