# Notebook-style script: models and optimizers are globals made in one
# "cell", the steps are functions that read globals, `fake` is a global set
# by one function and read by another. The D step frees G's graph that the
# G step needs. opt_g.zero_grad() is right before the G backward, so
# D(fake.detach()) in d_step is right.
import torch
import torch.nn as nn
import torch.nn.functional as F

# %% cell 1
torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
fake = None


# %% cell 2
def sample():
    global fake
    fake = G(torch.randn(16, 4))


def d_step(real):
    opt_d.zero_grad()
    loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
    loss.backward()
    opt_d.step()
    return loss.item()


def g_step():
    opt_g.zero_grad()
    loss = F.softplus(-D(fake)).mean()
    loss.backward()
    opt_g.step()
    return loss.item()


# %% cell 3
for it in range(6):
    sample()
    d = d_step(torch.randn(16, 8))
    g = g_step()
print(d, g)
