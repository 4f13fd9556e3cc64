import itertools

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.Adam(G.parameters(), lr=1e-3)
opt.add_param_group({"params": D.parameters(), "lr": 5e-4})

for i in range(6):
    real = torch.randn(16, 8)
    fake = G(torch.randn(16, 4))
    opt.zero_grad()
    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
    d_loss.backward()
    g_loss = F.softplus(-D(fake)).mean()
    g_loss.backward()
    opt.step()
print(d_loss.item(), g_loss.item())
