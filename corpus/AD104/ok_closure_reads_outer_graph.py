# expect-before: runs
# A probe fitted with LBFGS on features an encoder computes once per batch,
# outside the closure: `optimizer.step(closure)` calls the closure several
# times per step, and each call backwards through the same encoder graph (the
# encoder learns from the probe's loss too). The closure returns its loss, but
# the retain is what lets the second call run.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def fit(encoder, probe, optimizer, x, y):
    feats = encoder(x)

    def closure():
        optimizer.zero_grad()
        loss = (probe(feats) - y).pow(2).mean()
        loss.backward(retain_graph=True)
        return loss

    return optimizer.step(closure)


torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(6, 8), nn.Tanh())
probe = nn.Linear(8, 1)
optimizer = torch.optim.LBFGS([*encoder.parameters(), *probe.parameters()], lr=0.1, max_iter=3)
for step in range(ITERS):
    loss = fit(encoder, probe, optimizer, torch.randn(16, 6), torch.randn(16, 1))
    print(f"{step} loss {loss.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in encoder.parameters()):.6f}")
