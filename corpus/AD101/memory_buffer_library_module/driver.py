import torch
import torch.nn as nn
import torch.nn.functional as F

from train import CompressiveMemory


def run(iters):
    model = nn.Sequential(nn.Linear(6, 6), CompressiveMemory(6), nn.Linear(6, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    stream = torch.randn(iters, 8, 6)
    targets = torch.randn(iters, 8, 1)
    for step in range(iters):
        loss = F.mse_loss(model(stream[step]), targets[step])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"segment {step} loss {loss.item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
