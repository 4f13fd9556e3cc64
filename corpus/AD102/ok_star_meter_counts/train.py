# expect-before: runs
# A captioning-style step: the decoder returns its scores with the decode
# lengths (a list of ints), and the meters from `from utils import *` get the
# loss as a number and the lengths summed as the count. The meter's `update`
# sums `val * n` into its state, but nothing handed to it carries a graph.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from utils import *

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 3)

    def forward(self, x, lengths):
        return self.fc(x), [int(n) for n in lengths]


def train(decoder, optimizer, data):
    losses, accs = AverageMeter(), AverageMeter()
    for x, y, lengths in data:
        scores, decode_lengths = decoder(x, lengths)
        loss = F.cross_entropy(scores, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        acc = (scores.argmax(1) == y).float().mean().item()
        losses.update(loss.item(), sum(decode_lengths))
        accs.update(acc, sum(decode_lengths))
    return losses.avg, accs.avg


if __name__ == "__main__":
    torch.manual_seed(0)
    decoder = Decoder()
    opt = torch.optim.SGD(decoder.parameters(), lr=0.05)
    data = [(torch.randn(8, 6), torch.randint(0, 3, (8,)), torch.randint(1, 5, (8,))) for _ in range(ITERS)]
    loss, acc = train(decoder, opt, data)
    print(f"loss {loss:.6f} acc {acc:.6f}")
    print(f"checksum {sum(p.sum().item() for p in decoder.parameters()):.6f}")
