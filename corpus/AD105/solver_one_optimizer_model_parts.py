# expect-before: error Trying to backward through the graph a second time
# Two models, one optimizer, in a Solver that receives one model object holding
# G and D and calls the parts through the attribute (`self.model.G(z)`). One
# optimizer over `model.parameters()` steps G with the gradients of both losses:
# detaching `fake` in the D loss would stop G learning from it. retain_graph=True
# on the first backward keeps the updates the author wrote.
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
        self.opt = torch.optim.Adam(model.parameters(), lr=lr, betas=(0.5, 0.9))

    def step(self, real):
        fake = self.model.G(torch.randn(real.size(0), 4))
        self.opt.zero_grad()
        d_loss = self.model.D(fake).mean() - self.model.D(real).mean()
        d_loss.backward()
        g_loss = -self.model.D(fake).mean()
        g_loss.backward()
        self.opt.step()
        return d_loss.item(), g_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    solver = Solver(GAN())
    batches = [torch.randn(8, 6) + 2.0 for _ in range(ITERS)]
    for it in range(ITERS):
        d, g = solver.step(batches[it])
        print(f"{it} d {d:.6f} g {g:.6f}")
    print(f"checksum {sum(p.sum().item() for p in solver.model.parameters()):.6f}")
