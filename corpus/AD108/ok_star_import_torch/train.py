# expect-before: runs
# The same script written correctly: the discriminator steps first, and the
# generator's adversarial term is computed after that step, from D's new weights.
import os

from utils import *

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

generator = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 6))
discriminator = nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
optimizer_G = torch.optim.Adam(generator.parameters(), lr=1e-3)
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=1e-3)

torch.manual_seed(0)
for step in range(ITERS):
    frames = torch.randn(8, 6)
    target = frames.roll(1, dims=1)
    pred = generator(frames)
    d_total = bce(discriminator(target), torch.ones(8, 1)) + bce(discriminator(pred.detach()), torch.zeros(8, 1))
    optimizer_D.zero_grad()
    d_total.backward()
    optimizer_D.step()
    g_adv = bce(discriminator(pred), torch.ones(8, 1))
    g_total = (pred - target).abs().mean() + 0.05 * g_adv
    optimizer_G.zero_grad()
    g_total.backward()
    optimizer_G.step()
    print(f"{step} d {d_total.item():.6f} g {g_total.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in generator.parameters()):.6f}")
