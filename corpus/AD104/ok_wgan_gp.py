# expect-before: runs
# WGAN-GP: the gradient penalty differentiates the critic's gradient, so
# autograd.grad needs create_graph=True and retain_graph=True.
import os

import torch
from torch import autograd, nn, optim

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def gradient_penalty(netD, real, fake):
    alpha = torch.rand(real.size(0), 1)
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    d_interp = netD(interp)
    grads = autograd.grad(outputs=d_interp, inputs=interp,
                          grad_outputs=torch.ones_like(d_interp),
                          create_graph=True, retain_graph=True, only_inputs=True)[0]
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


def main():
    torch.manual_seed(0)
    netG = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
    netD = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 1))
    optD = optim.Adam(netD.parameters(), lr=1e-4, betas=(0.5, 0.9))
    optG = optim.Adam(netG.parameters(), lr=1e-4, betas=(0.5, 0.9))
    for it in range(ITERS):
        real = torch.randn(32, 2) + torch.tensor([1.0, -1.0])
        fake = netG(torch.randn(32, 4))
        optD.zero_grad()
        d_loss = netD(fake.detach()).mean() - netD(real).mean()
        gp = gradient_penalty(netD, real, fake.detach())
        (d_loss + 10.0 * gp).backward()
        optD.step()
        optG.zero_grad()
        g_loss = -netD(netG(torch.randn(32, 4))).mean()
        g_loss.backward()
        optG.step()
        print(f"{it} d {d_loss.item():.6f} gp {gp.item():.6f} g {g_loss.item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in netD.parameters()):.6f}")


if __name__ == "__main__":
    main()
