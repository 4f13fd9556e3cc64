import torch
import torch.nn as nn
import torch.nn.functional as F


class GAN(nn.Module):
    def __init__(self):
        super().__init__()
        self.gen = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
        self.disc = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


torch.manual_seed(0)
model = GAN()
opt_d = torch.optim.Adam([p for n, p in model.named_parameters() if "disc" in n], lr=1e-3)
opt_g = torch.optim.Adam([p for n, p in model.named_parameters() if "gen" in n], lr=1e-3)
for i in range(6):
    real = torch.randn(16, 8)
    fake = model.gen(torch.randn(16, 4))
    opt_d.zero_grad()
    d_loss = F.softplus(-model.disc(real)).mean() + F.softplus(model.disc(fake)).mean()
    d_loss.backward()
    opt_d.step()
    opt_g.zero_grad()
    g_loss = F.softplus(-model.disc(fake)).mean()
    g_loss.backward()
    opt_g.step()
print(d_loss.item(), g_loss.item())
