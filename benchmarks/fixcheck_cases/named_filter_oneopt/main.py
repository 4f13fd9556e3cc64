import torch
import torch.nn as nn
import torch.nn.functional as F


class GAN(nn.Module):
    def __init__(self):
        super().__init__()
        self.gen = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
        self.disc = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
        self.aux_head = nn.Linear(8, 3)


torch.manual_seed(0)
model = GAN()
# everything but the auxiliary head, which is trained elsewhere
opt = torch.optim.Adam([p for n, p in model.named_parameters() if not n.startswith("aux")], lr=1e-3)
for i in range(6):
    real = torch.randn(16, 8)
    opt.zero_grad()
    fake = model.gen(torch.randn(16, 4))
    d_loss = F.softplus(-model.disc(real)).mean() + F.softplus(model.disc(fake)).mean()
    d_loss.backward()
    g_loss = F.softplus(-model.disc(fake)).mean()
    g_loss.backward()
    opt.step()
print(d_loss.item(), g_loss.item())
