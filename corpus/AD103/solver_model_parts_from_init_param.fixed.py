# expect-before: error Trying to backward through the graph a second time
# A Solver receives one model object holding G and D, builds its optimizers
# from the parameter (`model.G.parameters()`) and calls the parts through the
# attribute (`self.model.G(z)`). The D step scores `fake` without detaching it;
# the generator step then needs the graph the D step freed. G's gradients from
# the D step are zeroed by `self.opt_g.zero_grad()` before G's step: detach.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class GAN(nn.Module):
    def __init__(self, nz=4, nx=6):
        super().__init__()
        self.G = nn.Sequential(nn.Linear(nz, 16), nn.ReLU(), nn.Linear(16, nx))
        self.D = nn.Sequential(nn.Linear(nx, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))


class Solver:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.opt_g = torch.optim.Adam(model.G.parameters(), lr=lr, betas=(0.5, 0.9))
        self.opt_d = torch.optim.Adam(model.D.parameters(), lr=lr, betas=(0.5, 0.9))

    def step(self, real):
        fake = self.model.G(torch.randn(real.size(0), 4))
        self.opt_d.zero_grad()
        d_loss = self.model.D(fake.detach()).mean() - self.model.D(real).mean()
        d_loss.backward()
        self.opt_d.step()
        self.opt_g.zero_grad()
        g_loss = -self.model.D(fake).mean()
        g_loss.backward()
        self.opt_g.step()
        return d_loss.item(), g_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    solver = Solver(GAN())
    batches = [torch.randn(8, 6) + 2.0 for _ in range(ITERS)]
    for it in range(ITERS):
        d, g = solver.step(batches[it])
        print(f"{it} d {d:.6f} g {g:.6f}")
    print(f"checksum {sum(p.sum().item() for p in solver.model.parameters()):.6f}")
