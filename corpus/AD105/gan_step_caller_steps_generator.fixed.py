# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A step function trains D on `fake` without detaching it, then backwards the
# generator's loss through the same `fake`. The caller zeroes G's gradients
# before the call and steps G after it, so G learns from both losses: the
# gradients the D loss puts into G are used. Detaching `fake` in the D loss
# would drop them; retain_graph=True keeps the updates the author wrote.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def d_then_g(G, D, opt_d, real, z):
    fake = G(z)
    opt_d.zero_grad()
    d_loss = D(fake).mean() - D(real).mean()
    d_loss.backward(retain_graph=True)
    opt_d.step()
    g_loss = -D(fake).mean()
    g_loss.backward()
    return d_loss.item(), g_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    gen = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 6))
    disc = nn.Linear(6, 1)
    opt_d = torch.optim.SGD(disc.parameters(), lr=0.05)
    opt_g = torch.optim.SGD(gen.parameters(), lr=0.05)
    data = [(torch.randn(8, 6) + 1.0, torch.randn(8, 4)) for _ in range(ITERS)]
    for it in range(ITERS):
        opt_g.zero_grad()
        d, g = d_then_g(gen, disc, opt_d, *data[it])
        opt_g.step()
        print(f"{it} d {d:.6f} g {g:.6f}")
    print(f"checksum {sum(p.sum().item() for p in gen.parameters()):.6f}")
