import torch
import torch.nn as nn
import torch.nn.functional as F


class StyleGAN(nn.Module):
    def __init__(self):
        super().__init__()
        self.mapping = nn.Sequential(nn.Linear(4, 4), nn.LeakyReLU(0.2))
        self.synthesis = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
        self.disc = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))

    def generate(self, z):
        return self.synthesis(self.mapping(z))


torch.manual_seed(0)
model = StyleGAN()
opt_g = torch.optim.Adam([
    {"params": model.synthesis.parameters()},
    {"params": model.mapping.parameters(), "lr": 1e-5},
], lr=1e-3)
opt_d = torch.optim.Adam([{"params": model.disc.parameters()}], lr=1e-3)
for i in range(6):
    real = torch.randn(16, 8)
    fake = model.generate(torch.randn(16, 4))
    opt_d.zero_grad()
    d_loss = F.softplus(-model.disc(real)).mean() + F.softplus(model.disc(fake)).mean()
    d_loss.backward()
    opt_d.step()
    opt_g.zero_grad()
    g_loss = F.softplus(-model.disc(fake)).mean()
    g_loss.backward()
    opt_g.step()
print(d_loss.item(), g_loss.item())
