import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    """Networks kept in a dict filled entry by entry; ONE optimizer built from the names it was given."""

    def __init__(self, G, D):
        self.models = {}
        self.models["G"] = G
        self.models["D"] = D
        self.opt = torch.optim.SGD(list(G.parameters()) + list(D.parameters()), lr=0.1)

    def step(self, real, z):
        fake = self.models["G"](z)
        d_real, d_fake = self.models["D"](real), self.models["D"](fake)
        d_loss = F.binary_cross_entropy_with_logits(d_real, torch.ones_like(d_real)) + \
            F.binary_cross_entropy_with_logits(d_fake, torch.zeros_like(d_fake))
        self.opt.zero_grad()
        d_loss.backward()
        self.opt.step()  # also moves G, by the D loss's gradients
        g_out = self.models["D"](fake)
        g_loss = F.binary_cross_entropy_with_logits(g_out, torch.ones_like(g_out))
        self.opt.zero_grad()
        g_loss.backward()
        self.opt.step()
        return g_loss.item()


torch.manual_seed(0)
G = nn.Linear(4, 2)  # fed raw noise: its graph saves no weight, so the retained run is valid
D = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
tr = Trainer(G, D)
for _ in range(3):
    print(tr.step(torch.randn(8, 2) + 1.0, torch.randn(8, 4)))
