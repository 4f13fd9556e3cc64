import torch
import torch.nn as nn
import torch.nn.functional as F

from accel import Accelerator


class GAN(nn.Module):
    def __init__(self):
        super().__init__()
        self.G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
        self.D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))


def main():
    torch.manual_seed(0)
    accelerator = Accelerator()
    model = GAN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model, optimizer = accelerator.prepare(model, optimizer)
    for step in range(6):
        real = torch.randn(16, 8)
        optimizer.zero_grad()
        fake = model.G(torch.randn(16, 4))
        d_loss = F.softplus(-model.D(real)).mean() + F.softplus(model.D(fake)).mean()
        accelerator.backward(d_loss)
        g_loss = F.softplus(-model.D(fake)).mean()
        accelerator.backward(g_loss)
        optimizer.step()
    print(d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
