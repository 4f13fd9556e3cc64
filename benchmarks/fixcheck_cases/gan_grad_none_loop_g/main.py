# G's gradients are cleared by hand (`p.grad = None` over G's parameters)
# right before the G backward; the D step reuses `fake` first. The D step's
# gradient on G is dropped, so D(fake.detach()) gives the reference's
# numbers; retain_graph=True would too.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt_g = torch.optim.SGD(G.parameters(), lr=0.05, momentum=0.5)
opt_d = torch.optim.SGD(D.parameters(), lr=0.05, momentum=0.5)
for it in range(6):
    real = torch.randn(16, 8)
    fake = G(torch.randn(16, 4))
    for p in D.parameters():
        p.grad = None
    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
    d_loss.backward()
    opt_d.step()
    for p in G.parameters():
        p.grad = None
    g_loss = F.softplus(-D(fake)).mean()
    g_loss.backward()
    opt_g.step()
print(d_loss.item(), g_loss.item())
