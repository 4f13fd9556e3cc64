# expect-before: runs
# A GAN-style adversarial term that stays the number `0.0` until the
# discriminator starts (`if it >= START`), then becomes a tensor with the
# generator's graph. Its history keeps those graphs alive, but
# `adv_loss.detach()` would raise on the early iterations, where it is still a
# float: the rule reports it and offers no fix.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
START = ITERS // 2
torch.manual_seed(0)

gen = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8))
disc = nn.Linear(8, 1)
opt_g = torch.optim.SGD(gen.parameters(), lr=0.05)

adv_history = []
for it in range(ITERS):
    x = torch.randn(16, 8)
    fake = gen(x)
    loss_g = nn.functional.mse_loss(fake, x)
    adv_loss = 0.0
    if it >= START:
        adv_loss += disc(fake).pow(2).mean()
        adv_loss = adv_loss / 2
    loss_g = loss_g + adv_loss
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()
    adv_history.append(adv_loss)
    print(f"{it} loss {loss_g.item():.6f}")

print(f"kept {len(adv_history)}")
print(f"checksum {sum(p.sum().item() for p in gen.parameters()):.6f}")
