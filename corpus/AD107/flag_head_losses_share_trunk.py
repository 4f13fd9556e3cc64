# expect-before: error Trying to backward through the graph a second time
# Per-head losses built in one list comprehension from a shared trunk `z`,
# then backwarded one by one in a loop: the first backward frees the trunk's
# graph, which the second head's loss needs. `z` cannot move into the loop
# (the losses are built from it before the loop), so AD107 reports without a
# fix: backward the sum once, or retain the graph for every head but the last.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(trunk, heads, opt, batches):
    for x, y in batches:
        z = torch.tanh(trunk(x))
        losses = [nn.functional.mse_loss(h(z), y) for h in heads]
        opt.zero_grad()
        for loss in losses:
            loss.backward()
        opt.step()
        print(" ".join(f"{loss.item():.6f}" for loss in losses))


if __name__ == "__main__":
    torch.manual_seed(0)
    trunk = nn.Linear(5, 8)
    heads = nn.ModuleList([nn.Linear(8, 1) for _ in range(3)])
    opt = torch.optim.SGD(list(trunk.parameters()) + list(heads.parameters()), lr=0.05)
    batches = [(torch.randn(16, 5), torch.randn(16, 1)) for _ in range(ITERS)]
    train(trunk, heads, opt, batches)
    print(f"checksum {sum(p.sum().item() for p in trunk.parameters()):.6f}")
