import torch
import torch.nn.functional as F
from torch import nn

from layers import GainNorm


def train(model, opt, batches):
    for x, y in batches:
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item()


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 12), GainNorm(12), nn.ReLU(), nn.Linear(12, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
print(train(model, opt, [(torch.randn(16, 6), torch.randn(16, 1)) for _ in range(5)]))
