# expect-before: error Trying to backward through the graph a second time
import torch
import torch.nn as nn
import torch.nn.functional as F


class GAN(nn.Module):
    def __init__(self):
        super().__init__()
        self.G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
        self.D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


torch.manual_seed(0)
model = GAN()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
G, D = model.G, model.D  # one optimizer steps both parts
for i in range(4):
    real = torch.randn(16, 8)
    fake = G(torch.randn(16, 4))
    opt.zero_grad()
    d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
    d_loss.backward(retain_graph=True)
    g_loss = F.softplus(-D(fake)).mean()
    g_loss.backward()
    opt.step()
    print(f"{d_loss.item():.6f} {g_loss.item():.6f}")
print(f"{sum(p.sum().item() for p in model.parameters()):.6f}")
