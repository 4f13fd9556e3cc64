# expect-before: error Trying to backward through the graph a second time
# Hugging Face Accelerate: `accelerator.backward(loss)` runs `loss.backward()`.
# A GAN step in a function that receives the prepared models and optimizers:
# D's loss uses `fake` without detach, so its backward frees G's part of the
# graph, which G's loss needs again. D's pass only needs `fake` as a value.
import os

import torch
import torch.nn as nn
from accelerate import Accelerator

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(G, D, opt_g, opt_d, batches, accelerator, nz=4):
    bce = nn.BCEWithLogitsLoss()
    for i, real in enumerate(batches):
        fake = G(torch.randn(real.size(0), nz))
        opt_d.zero_grad()
        d_loss = bce(D(real), torch.ones(real.size(0), 1)) + bce(D(fake.detach()), torch.zeros(real.size(0), 1))
        accelerator.backward(d_loss)
        opt_d.step()
        opt_g.zero_grad()
        g_loss = bce(D(fake), torch.ones(real.size(0), 1))
        accelerator.backward(g_loss)
        opt_g.step()
        print(f"{i} d {d_loss.item():.6f} g {g_loss.item():.6f}")


def main():
    torch.manual_seed(0)
    accelerator = Accelerator(cpu=True)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
    D = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
    batches = [torch.randn(8, 2) + 1.0 for _ in range(ITERS)]
    G, D, opt_g, opt_d = accelerator.prepare(G, D, opt_g, opt_d)
    train(G, D, opt_g, opt_d, batches, accelerator)
    print(f"checksum {sum(p.sum().item() for p in list(G.parameters()) + list(D.parameters())):.6f}")


if __name__ == "__main__":
    main()
