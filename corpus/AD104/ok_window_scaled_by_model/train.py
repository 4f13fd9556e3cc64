# expect-before: runs
# Sliding windows scaled by a learned gain: a helper cuts the series into windows
# once, before training, reading the window length and multiplying each
# window by `model.gain`, a parameter: the windows hang from a graph built
# before the loop, which every batch's backward walks again, so the
# retain_graph=True is what lets the later batches run (only the head that
# reads the windows is trained here).
import os

import torch
from torch import nn

from models import WindowNet

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def to_windows(series, model):
    size = model.n_window
    windows = []
    for i in range(len(series)):
        if i >= size:
            windows.append(series[i - size:i] * model.gain)
        else:
            windows.append(torch.cat([series[0].repeat(size - i, 1), series[0:i]]) * model.gain)
    return torch.stack(windows)


def backprop(head, windows, optimizer):
    mse = nn.MSELoss()
    total = []
    for start in range(0, len(windows), 4):
        batch = windows[start:start + 4]
        loss = mse(head(batch), batch[:, -1])
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        optimizer.step()
        total.append(loss.item())
    return sum(total) / len(total)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = WindowNet()
    head = nn.Sequential(nn.Flatten(), nn.Linear(3 * 4, 4))
    optimizer = torch.optim.Adam(head.parameters(), lr=1e-2)
    windows = to_windows(torch.randn(12, 4), model)
    for epoch in range(ITERS):
        print(f"{epoch} loss {backprop(head, windows, optimizer):.6f}")
    print(f"checksum {sum(p.sum().item() for p in head.parameters()) + model.gain.grad.sum().item():.6f}")
