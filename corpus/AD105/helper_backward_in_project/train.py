# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# The generator step backwards the adversarial loss, then calls a penalty
# from losses.py that runs backward itself through the discriminator
# features of the same fake batch: the first backward freed that graph.
import os

import torch
from torch import nn

from losses import diversity_loss

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2))
        self.score = nn.Linear(16, 1)

    def forward(self, x):
        phi = self.features(x)
        return self.score(phi), phi


torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 6))
D = Critic()
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
for it in range(ITERS):
    real = torch.randn(8, 6)
    fake = G(torch.randn(8, 4))
    score_fake, phi_fake = D(fake)
    opt_g.zero_grad()
    g_loss = -score_fake.mean()
    g_loss.backward()
    _, phi_real = D(real)
    div = diversity_loss(phi_real, phi_fake, backward=True)
    opt_g.step()
    print(f"{it} g {g_loss.item():.6f} div {div:.6f}")
print(f"checksum {sum(p.sum().item() for p in G.parameters()):.6f}")
