# Models built by name from a registry in models.py, one optimizer each, a flat
# GAN loop. The D backward frees G's graph; G's gradients from it are zeroed
# before G's step. Correct: D(fake.detach()) in the D loss (AD103) or
# retain_graph=True on the D backward; both match the reference.
import torch
import torch.nn.functional as F

import models


def main():
    torch.manual_seed(0)
    G = models.build("generator")
    D = models.build("discriminator")
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
    for step in range(6):
        real = torch.randn(16, 8)
        fake = G(torch.randn(16, 4))
        D.zero_grad()
        loss_d = F.binary_cross_entropy_with_logits(D(real), torch.ones(16, 1)) + \
            F.binary_cross_entropy_with_logits(D(fake), torch.zeros(16, 1))
        loss_d.backward()
        opt_d.step()
        G.zero_grad()
        loss_g = F.binary_cross_entropy_with_logits(D(fake), torch.ones(16, 1))
        loss_g.backward()
        opt_g.step()
    print(loss_d.item(), loss_g.item())


if __name__ == "__main__":
    main()
