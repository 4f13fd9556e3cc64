# expect-before: runs
# An encoder and two heads, ONE optimizer, one `optimizer.step(closure)` per
# head, each closure's loss kept: the first closure already retains the
# encoder graph the second backward needs (the encoder's graph saved its input,
# not its weight, so the step between does not break it).
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from models import Encoder

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def main():
    torch.manual_seed(0)
    enc = Encoder()
    head1 = nn.Linear(6, 1)
    head2 = nn.Linear(6, 1)
    opt = torch.optim.SGD(list(enc.parameters()) + list(head1.parameters()) + list(head2.parameters()), lr=0.1)
    for it in range(ITERS):
        x, y = torch.randn(8, 5), torch.randn(8, 1)
        feat = enc(x)

        def closure1():
            opt.zero_grad()
            l1 = F.mse_loss(head1(feat), y)
            l1.backward(retain_graph=True)
            return l1

        l1 = opt.step(closure1)

        def closure2():
            opt.zero_grad()
            l2 = F.mse_loss(head2(feat), y)
            l2.backward()
            return l2

        l2 = opt.step(closure2)
        print(f"{it} {l1.item():.6f} {l2.item():.6f}")
    print(f"{sum(p.sum().item() for p in enc.parameters()):.6f}")


if __name__ == "__main__":
    main()
