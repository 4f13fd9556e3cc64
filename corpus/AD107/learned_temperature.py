# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A contrastive loss with a learnable temperature stored as its log; the
# exponential is taken once before the loop and reused by every step.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

encoder = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 16))
log_temp = nn.Parameter(torch.tensor(-1.0))
optimizer = torch.optim.Adam([*encoder.parameters(), log_temp], lr=1e-3)
temperature = log_temp.exp()
labels = torch.arange(8)
for it in range(ITERS):
    x = torch.randn(8, 10)
    view1 = encoder(x + 0.1 * torch.randn_like(x))
    view2 = encoder(x + 0.1 * torch.randn_like(x))
    sim = F.normalize(view1, dim=1) @ F.normalize(view2, dim=1).t()
    loss = F.cross_entropy(sim / temperature, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"{it} loss {loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in encoder.parameters()):.6f} {log_temp.item():.6f}")
