# Two optimizers kept in a list and zeroed together by a loop at the top;
# the G step (not zeroed again) runs after the D step. opt_g steps a .grad
# that holds the D step's gradient through `fake`: a detach in the D loss
# changes G's update. Only retain_graph keeps the reference's numbers.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optims = [torch.optim.Adam(G.parameters(), lr=1e-3), torch.optim.Adam(D.parameters(), lr=1e-3)]
opt_g, opt_d = optims
for it in range(6):
    for o in optims:
        o.zero_grad()
    real = torch.randn(16, 8)
    fake = G(torch.randn(16, 4))
    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
    d_loss.backward()
    opt_d.step()
    g_loss = F.softplus(-D(fake)).mean()
    g_loss.backward()
    opt_g.step()
print(d_loss.item(), g_loss.item())
