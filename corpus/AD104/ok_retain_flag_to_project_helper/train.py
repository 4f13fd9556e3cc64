# expect-before: runs
# The same helper of another file taking the retain flag, on a multi-task
# model whose heads share an encoder: the first task's backward keeps the
# encoder's graph for the second task's backward, so handing
# `retain_graph=True` to the helper is needed. Each head has its own
# optimizer; the encoder is stepped once, after both backwards.
import os

import torch
from torch import nn

from optim_utils import optimize

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(encoder, heads, batches, lr=1e-2):
    opt_enc = torch.optim.SGD(encoder.parameters(), lr=lr)
    opt_a = torch.optim.SGD(heads[0].parameters(), lr=lr)
    opt_b = torch.optim.SGD(heads[1].parameters(), lr=lr)
    for step, (x, ya, yb) in enumerate(batches):
        opt_enc.zero_grad()
        h = encoder(x)
        loss_a = (heads[0](h).squeeze(1) - ya).pow(2).mean()
        optimize(loss_a, opt_a, heads[0].parameters(), retain_graph=True)
        loss_b = (heads[1](h).squeeze(1) - yb).abs().mean()
        optimize(loss_b, opt_b, heads[1].parameters())
        opt_enc.step()
        print(step, f"{loss_a.item():.6f}", f"{loss_b.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    encoder = nn.Sequential(nn.Linear(6, 16), nn.Tanh())
    heads = [nn.Linear(16, 1), nn.Linear(16, 1)]
    train(encoder, heads, [(torch.randn(8, 6), torch.randn(8), torch.randn(8)) for _ in range(ITERS)])
    print(f"checksum {sum(p.sum().item() for p in encoder.parameters()):.6f}")
