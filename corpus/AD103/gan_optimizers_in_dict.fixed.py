# expect-before: error Trying to backward through the graph a second time
# A GAN trainer keeps its networks and one optimizer per network in dict
# literals. The D loss goes through G's un-detached fake and frees G's graph;
# G's gradients from it are zeroed before G's step (optims["G"] steps only G,
# read from the literal), so D(fake.detach()) is the fix.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Trainer:
    def __init__(self, G, D):
        self.models = {"G": G, "D": D}
        self.optims = {
            "G": torch.optim.SGD(G.parameters(), lr=0.05),
            "D": torch.optim.SGD(D.parameters(), lr=0.05),
        }

    def step(self, real, z):
        fake = self.models["G"](z)
        d_real, d_fake = self.models["D"](real), self.models["D"](fake.detach())
        d_loss = F.binary_cross_entropy_with_logits(d_real, torch.ones_like(d_real)) + \
            F.binary_cross_entropy_with_logits(d_fake, torch.zeros_like(d_fake))
        self.optims["D"].zero_grad()
        d_loss.backward()
        self.optims["D"].step()
        g_out = self.models["D"](fake)
        g_loss = F.binary_cross_entropy_with_logits(g_out, torch.ones_like(g_out))
        self.optims["G"].zero_grad()
        g_loss.backward()
        self.optims["G"].step()
        return d_loss.item(), g_loss.item()


G = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
trainer = Trainer(G, D)
for it in range(ITERS):
    d, g = trainer.step(torch.randn(32, 2) + 1.0, torch.randn(32, 4))
    print(f"{it} d {d:.6f} g {g:.6f}")
