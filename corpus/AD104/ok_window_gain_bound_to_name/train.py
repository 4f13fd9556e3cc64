# expect-before: runs
# The same windows, but the helper also binds the model's learned gain
# (`gain = net.gain`, a parameter) to a local name and multiplies each window
# by it: that name is read as a value, not as an index or a size, so the
# windows hang from a graph built once, before training, that every batch's
# backward walks again. retain_graph=True is what lets the later batches run
# (only the forecaster's layers are stepped; the gain's gradient accumulates).
import os

import torch
from torch import nn

from nets import SeqForecaster

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def make_windows(series, net):
    length = net.seq_len
    gain = net.gain
    out = []
    for t in range(1, len(series)):
        if t < length:
            out.append(torch.cat([series[0:1].repeat(length - t, 1), series[0:t]]) * gain)
        else:
            out.append(series[t - length:t] * gain)
    return torch.stack(out), series[1:]


class Trainer:
    def __init__(self, net, lr=1e-2):
        self.net = net
        self.opt = torch.optim.Adam([*net.encoder.parameters(), *net.head.parameters()], lr=lr)
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
    print(f"checksum {sum(p.sum().item() for p in net.parameters()) + net.gain.grad.sum().item():.6f}")
