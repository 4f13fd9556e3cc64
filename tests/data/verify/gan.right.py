# A GAN step: the discriminator's backward runs through G's graph and frees
# it; the generator step then needs that graph.
import torch
import torch.nn as nn

torch.manual_seed(0)
netG = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
netD = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
optG = torch.optim.SGD(netG.parameters(), lr=0.05)
optD = torch.optim.SGD(netD.parameters(), lr=0.05)
bce = nn.BCEWithLogitsLoss()


def train(iters=5):
    for it in range(iters):
        real = torch.randn(16, 2) + 2.0
        fake = netG(torch.randn(16, 4))
        d_loss = bce(netD(real), torch.ones(16, 1)) + bce(netD(fake.detach()), torch.zeros(16, 1))
        optD.zero_grad()
        d_loss.backward()
        optD.step()
        g_loss = bce(netD(fake), torch.ones(16, 1))
        optG.zero_grad()
        g_loss.backward()
        optG.step()
        print(f"{it} {d_loss.item():.6f} {g_loss.item():.6f}")


if __name__ == "__main__":
    train()
