# expect-before: runs
# Forecasting on sliding windows: a helper of this file cuts the series into
# windows once, before training, reading the model's window length
# (`net.seq_len`, which nets.py stores from a constructor argument, not a
# literal) only as slice bounds, repeat counts and in a comparison: an index
# or a size picks entries of the series and brings no graph of the network.
# A Trainer method then runs a fresh forward per batch and backwards its loss
# with retain_graph=True; no later backward walks that graph, so the retain
# only keeps each batch's activations alive until the next forward. The fix
# is unsafe, as inferred: the windows reach the loss as arguments of
# `fit_epoch()`, and callers out of sight might backward them again.
# autodetach-test: unsafe
import os

import torch
from torch import nn

from nets import SeqForecaster

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def make_windows(series, net):
    length = net.seq_len
    out = []
    for t in range(1, len(series)):
        if t < length:
            out.append(torch.cat([series[0:1].repeat(length - t, 1), series[0:t]]))
        else:
            out.append(series[t - length:t])
    return torch.stack(out), series[1:]


class Trainer:
    def __init__(self, net, lr=1e-2):
        self.net = net
        self.opt = torch.optim.Adam(net.parameters(), lr=lr)
        self.crit = nn.MSELoss()

    def fit_epoch(self, windows, targets):
        losses = []
        for start in range(0, len(windows), 5):
            pred = self.net(windows[start:start + 5])
            loss = self.crit(pred, targets[start:start + 5])
            self.opt.zero_grad()
            loss.backward(retain_graph=True)
            self.opt.step()
            losses.append(loss.item())
        return sum(losses) / len(losses)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = SeqForecaster(seq_len=4, feats=3)
    windows, targets = make_windows(torch.randn(21, 3), net)
    trainer = Trainer(net)
    for epoch in range(ITERS):
        print(f"epoch {epoch} loss {trainer.fit_epoch(windows, targets):.6f}")
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
