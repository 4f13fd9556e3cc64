# expect-before: runs
# An encoder and a critic trained from one forward: the encoder's step comes
# first, then the critic's loss is backwarded with inputs= the critic's
# parameters only, so autograd never enters the stepped encoder's graph.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))
critic = nn.Sequential(nn.Linear(9, 8), nn.ReLU(), nn.Linear(8, 1))
opt_encoder = torch.optim.Adam(encoder.parameters(), lr=1e-3)
opt_critic = torch.optim.Adam(critic.parameters(), lr=1e-3)
for i in range(ITERS):
    x = torch.randn(8, 6)
    z = encoder(x)
    info = -critic(torch.cat([x, z], 1)).mean()
    loss = z.pow(2).mean() + 0.5 * info
    opt_encoder.zero_grad()
    loss.backward(retain_graph=True)
    opt_encoder.step()
    opt_critic.zero_grad()
    info.backward(inputs=list(critic.parameters()))
    opt_critic.step()
    print(f"{i} loss {loss.item():.6f} info {info.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in encoder.parameters()):.6f} "
      f"{sum(p.sum().item() for p in critic.parameters()):.6f}")
