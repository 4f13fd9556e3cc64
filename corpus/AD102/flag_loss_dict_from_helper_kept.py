# expect-before: runs
# A helper returns the losses in a dict; the loop sums two entries for the
# backward and keeps the whole dict in a history (every graph stays alive).
# Nothing in the loop builds the dict, but `losses["kl"]` shows it is one:
# `.detach()` of it would fail (AttributeError), so the rule reports it and
# offers no fix (seen in benchmarks/fixcheck_cases/trainer_loss_dict_history).
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

enc = nn.Linear(8, 8)
dec = nn.Linear(4, 8)
optimizer = torch.optim.Adam([*enc.parameters(), *dec.parameters()], lr=1e-3)


def compute_losses(x):
    mu, logvar = enc(x).chunk(2, dim=-1)
    z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
    return {"rec": F.mse_loss(dec(z), x), "kl": -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())}


history = []
for it in range(ITERS):
    losses = compute_losses(torch.randn(16, 8))
    loss = losses["rec"] + losses["kl"]
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    history.append(losses)
    print(f"{it} loss {loss.item():.6f}")

print(f"records {len(history)}")
print(f"checksum {sum(p.sum().item() for p in [*enc.parameters(), *dec.parameters()]):.6f}")
