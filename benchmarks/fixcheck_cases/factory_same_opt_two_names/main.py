# optim.py's make_optimizers returns the SAME optimizer twice when joint=True,
# and the loop names them opt_g and opt_d. The "D step" zeroes and steps both
# networks: G moves with the D loss's gradients. (G is one layer on the noise,
# so its saved tensors do not include its weight and the reference runs.)
# Correct: retain_graph=True on the D backward; D(fake.detach()) would leave G
# unmoved by the D step.
import torch
import torch.nn as nn
import torch.nn.functional as F

from optim import make_optimizers


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
    D = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    opt_g, opt_d = make_optimizers(G, D, joint=True)
    for _ in range(6):
        real = torch.randn(16, 8)
        fake = G(torch.randn(16, 4))
        opt_d.zero_grad()
        d_loss = F.softplus(-D(real)).mean() + F.softplus(D(fake)).mean()
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        g_loss = F.softplus(-D(fake)).mean()
        g_loss.backward()
        opt_g.step()
    print(d_loss.item(), g_loss.item())


if __name__ == "__main__":
    main()
