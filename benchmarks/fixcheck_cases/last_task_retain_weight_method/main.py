import torch
from torch import nn

from methods import CAGradLike

trunk = nn.Sequential(nn.Linear(10, 16), nn.Tanh())
heads = nn.ModuleList([nn.Linear(16, 1) for _ in range(3)])
optimizer = torch.optim.Adam([*trunk.parameters(), *heads.parameters()], lr=0.01)
method = CAGradLike(3)
shared = list(trunk.parameters())
for step in range(5):
    x = torch.randn(8, 10)
    h = trunk(x)
    losses = torch.stack([((head(h) - x[:, k:k + 1]) ** 2).mean() for k, head in enumerate(heads)])
    optimizer.zero_grad()
    method.backward(losses, shared)
    optimizer.step()
    print(step, losses.detach().sum().item())
