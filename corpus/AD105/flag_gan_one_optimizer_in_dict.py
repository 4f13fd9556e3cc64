# expect-before: error Trying to backward through the graph a second time
# A GAN trainer keeps its networks and its ONE optimizer in dicts. The D loss
# goes through G's fake, so its backward frees G's graph, which the G loss
# needs. retain_graph=True is no safe fix: the one optimizer also steps G
# between the two backwards, after G's graph saved its weights, so the
# retained run would fail with "modified by an inplace operation". The
# optimizer is read from the dict literal, so the step is known.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Trainer:
    def __init__(self, G, D):
        self.models = {"G": G, "D": D}
        self.optims = {"all": torch.optim.SGD(list(G.parameters()) + list(D.parameters()), lr=0.05)}

    def step(self, real, z):
        fake = self.models["G"](z)
        d_real, d_fake = self.models["D"](real), self.models["D"](fake)
        d_loss = F.binary_cross_entropy_with_logits(d_real, torch.ones_like(d_real)) + \
            F.binary_cross_entropy_with_logits(d_fake, torch.zeros_like(d_fake))
        self.optims["all"].zero_grad()
        d_loss.backward()
        self.optims["all"].step()
        g_out = self.models["D"](fake)
        g_loss = F.binary_cross_entropy_with_logits(g_out, torch.ones_like(g_out))
        self.optims["all"].zero_grad()
        g_loss.backward()
        self.optims["all"].step()
        return d_loss.item(), g_loss.item()


G = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
trainer = Trainer(G, D)
for it in range(ITERS):
    d, g = trainer.step(torch.randn(32, 2) + 1.0, torch.randn(32, 4))
    print(f"{it} d {d:.6f} g {g:.6f}")
