# expect-before: runs
# autodetach-test: unsafe
# train(model, loader, optimizer) keeps the epoch's per-term totals in a dict
# rebuilt by a comprehension at every step (`{k: totals[k] + losses[k] ...}`):
# each new total hangs from the one before and from the step's losses, so the
# dict chains every step's graph until the epoch ends. The fix cuts each value
# the comprehension stores (a dict has no .detach()). The optimizer's role is
# inferred from its calls: the fix is offered as unsafe.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(model, loader, optimizer):
    totals = {"mse": torch.tensor(0.0), "l1": torch.tensor(0.0)}
    for x, y in loader:
        out = model(x)
        losses = {"mse": F.mse_loss(out, y), "l1": F.l1_loss(out, y)}
        optimizer.zero_grad()
        (losses["mse"] + 0.5 * losses["l1"]).backward()
        optimizer.step()
        totals = {k: totals[k] + losses[k] * x.size(0) for k in totals}
        print(f"loss {losses['mse'].item():.6f}")
    return {k: v.item() / len(loader) for k, v in totals.items()}


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    data = [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)]
    means = train(model, data, opt)
    print(" ".join(f"{k} {v:.6f}" for k, v in sorted(means.items())))
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
