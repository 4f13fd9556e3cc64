# expect-before: runs
# Anomaly detection on sliding windows: a helper cuts the series into windows
# once, before training, reading only the model's window length
# (`model.n_window`, stored as a number by models.py). Each batch then runs a
# fresh forward and backwards its loss with retain_graph=True; no later
# backward walks that graph, so the retain only keeps each batch's
# activations alive until the next forward replaces them.
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
            windows.append(series[i - size:i])
        else:
            windows.append(torch.cat([series[0].repeat(size - i, 1), series[0:i]]))
    return torch.stack(windows)


def backprop(model, windows, optimizer):
    mse = nn.MSELoss()
    total = []
    for start in range(0, len(windows), 4):
        batch = windows[start:start + 4]
        loss = mse(model(batch), batch[:, -1])
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        optimizer.step()
        total.append(loss.item())
    return sum(total) / len(total)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = WindowNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    windows = to_windows(torch.randn(12, 4), model)
    for epoch in range(ITERS):
        print(f"{epoch} loss {backprop(model, windows, optimizer):.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
