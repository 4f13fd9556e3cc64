# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A dict of losses: the auxiliary loss is backwarded on its own (an extra
# push on the encoder), then `losses["total"]`, which sums it again, is
# backwarded for the whole model before one step. The entries are told apart by key, but the
# total hangs from the auxiliary entry, whose graph the first backward freed:
# retain it on the first backward (unsafe: `opt` and the modules are inferred
# from `train`'s parameters).
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def train(encoder, head, opt, batches):
    losses = {}
    for x, y in batches:
        z = encoder(x)
        losses["aux"] = z.pow(2).mean()
        losses["task"] = nn.functional.mse_loss(head(z), y)
        losses["total"] = losses["task"] + 0.1 * losses["aux"]
        opt.zero_grad()
        losses["aux"].backward(retain_graph=True)
        losses["total"].backward()
        opt.step()
        print(f"total {losses['total'].item():.6f}")


enc = nn.Linear(6, 4)
hd = nn.Linear(4, 2)
train(enc, hd, torch.optim.SGD(list(enc.parameters()) + list(hd.parameters()), lr=0.05),
      [(torch.randn(8, 6), torch.randn(8, 2)) for _ in range(ITERS)])
print(f"checksum {sum(p.sum().item() for p in list(enc.parameters()) + list(hd.parameters())):.6f}")
