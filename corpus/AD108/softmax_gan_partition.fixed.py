# expect-before: error modified by an inplace operation
# autodetach-test: unsafe
# The Softmax GAN of PyTorch-GAN (2018): D's outputs and the partition
# function Z are computed once, D's loss is backwarded with retain_graph and
# D steps, then G's loss is built from those same outputs. Since PyTorch 1.5
# the step's in-place update makes G's backward fail; the fix computes
# d_real, d_fake and Z again after the step.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
generator = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 6))
discriminator = nn.Sequential(nn.Linear(6, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
optimizer_G = torch.optim.Adam(generator.parameters(), lr=0.01)
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=0.01)
data = torch.randn(64, 6)


def log(x):
    return torch.log(x + 1e-8)


for it in range(ITERS):
    real_imgs = data[(it * 8) % 64:(it * 8) % 64 + 8]
    batch_size = real_imgs.shape[0]
    g_target = 1 / (batch_size * 2)
    d_target = 1 / batch_size
    optimizer_G.zero_grad()
    optimizer_D.zero_grad()
    gen_imgs = generator(torch.randn(batch_size, 4))
    d_real = discriminator(real_imgs)
    d_fake = discriminator(gen_imgs)
    Z = torch.sum(torch.exp(-d_real)) + torch.sum(torch.exp(-d_fake))
    d_loss = d_target * torch.sum(d_real) + log(Z)
    d_loss.backward(retain_graph=True)
    optimizer_D.step()

    # the generator's loss
    d_real = discriminator(real_imgs)
    d_fake = discriminator(gen_imgs)
    Z = torch.sum(torch.exp(-d_real)) + torch.sum(torch.exp(-d_fake))
    g_loss = g_target * (torch.sum(d_real) + torch.sum(d_fake)) + log(Z)
    g_loss.backward()
    optimizer_G.step()
    print("%.6f %.6f" % (d_loss.item(), g_loss.item()))
print("%.6f" % sum(p.sum().item() for p in generator.parameters()))
