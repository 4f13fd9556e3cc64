# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A conditional GAN trainer receives G, D and two optimizers whose names pair
# them (opt_g, opt_d), but the label embedding is shared by G and D and the
# caller puts it in BOTH optimizers. The D backward reaches the embedding
# through G's input (via fake) too, and opt_d steps it with that gradient, so
# D(fake.detach()) would change the embedding's updates. The fix is
# retain_graph=True on the D backward. (An embedding saves only its indices,
# so opt_d's step does not invalidate G's graph.)
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Cond(nn.Module):
    def __init__(self, emb, n_in, n_out):
        super().__init__()
        self.emb = emb
        self.net = nn.Sequential(nn.Linear(n_in + 4, 16), nn.ReLU(), nn.Linear(16, n_out))

    def forward(self, x, y):
        return self.net(torch.cat([x, self.emb(y)], 1))


class CGANTrainer:
    def __init__(self, G, D, opt_g, opt_d):
        self.G, self.D = G, D
        self.opt_g, self.opt_d = opt_g, opt_d

    def step(self, real, labels):
        fake = self.G(torch.randn(real.size(0), 4), labels)
        self.opt_d.zero_grad()
        d_loss = F.softplus(-self.D(real, labels)).mean() + F.softplus(self.D(fake, labels)).mean()
        d_loss.backward()
        self.opt_d.step()
        self.opt_g.zero_grad()
        g_loss = F.softplus(-self.D(fake, labels)).mean()
        g_loss.backward()
        self.opt_g.step()
        return d_loss.item(), g_loss.item()


def main():
    emb = nn.Embedding(3, 4)
    G, D = Cond(emb, 4, 8), Cond(emb, 8, 1)
    opt_g = torch.optim.Adam([{"params": G.net.parameters()}, {"params": emb.parameters(), "lr": 1e-4}], lr=1e-3)
    opt_d = torch.optim.Adam([{"params": D.net.parameters()}, {"params": emb.parameters(), "lr": 1e-4}], lr=1e-3)
    trainer = CGANTrainer(G, D, opt_g, opt_d)
    for it in range(ITERS):
        d, g = trainer.step(torch.randn(16, 8), torch.randint(0, 3, (16,)))
        print(f"{it} d {d:.6f} g {g:.6f}")
    print(f"checksum {sum(p.sum().item() for p in G.parameters()):.6f} "
          f"{sum(p.sum().item() for p in D.net.parameters()):.6f}")


main()
