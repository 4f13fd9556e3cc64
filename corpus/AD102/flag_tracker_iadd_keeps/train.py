# expect-before: runs
# The same loop and LossTracker as ok_tracker_iadd_detaches, but the running
# means' `__iadd__` keep the value itself (`self.values.append(value.unsqueeze(0))`,
# `value + self.mean * self.n`): the `+=` in `update` keeps every batch's graph.
# Reported at the hand-off; `dict(...)` is not a literal, so no fix is offered.
import os

import torch
import torch.nn as nn

from tracking import LossTracker

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(E, G, D, loader, tracker):
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
    opt_ge = torch.optim.Adam(list(E.parameters()) + list(G.parameters()), lr=1e-3)
    bce = nn.BCEWithLogitsLoss()
    for x in loader:
        z = E(x)
        d_loss = bce(D(z.detach()), torch.zeros(len(x), 1)) + bce(D(torch.randn_like(z)), torch.ones(len(x), 1))
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        tracker.update(dict(D=d_loss))

        z = E(x)
        recon = nn.functional.mse_loss(G(z), x)
        e_loss = bce(D(z), torch.ones(len(x), 1))
        opt_ge.zero_grad()
        (recon + 0.1 * e_loss).backward()
        opt_ge.step()
        tracker.update(dict(GE=recon, E=e_loss))


if __name__ == "__main__":
    torch.manual_seed(0)
    E, G, D = nn.Linear(6, 3), nn.Linear(3, 6), nn.Linear(3, 1)
    tracker = LossTracker()
    train(E, G, D, [torch.randn(8, 6) for _ in range(ITERS)], tracker)
    print(" ".join(f"{k} {v:.6f}" for k, v in sorted(tracker.means().items())))
    print(f"checksum {sum(p.sum().item() for m in (E, G, D) for p in m.parameters()):.6f}")
