import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
for i in range(6):
    real = torch.randn(16, 8)
    fake = G(torch.randn(16, 4))
    opt_d.zero_grad()
    loss_d = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
    loss_d.backward()
    opt_d.step()
    opt_g.zero_grad()
    loss_g = F.softplus(-D(fake)).mean()
    loss_g.backward()
    opt_g.step()
print(loss_d.item(), loss_g.item())
