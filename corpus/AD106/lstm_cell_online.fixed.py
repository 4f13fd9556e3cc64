# expect-before: error Trying to backward through the graph a second time
# Online one-step-ahead prediction with an LSTMCell, one update per time step:
# (h, c) from the last step reaches this step's backward.
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class OnlinePredictor:
    def __init__(self, hidden=20):
        self.cell = nn.LSTMCell(1, hidden)
        self.readout = nn.Linear(hidden, 1)
        self.opt = torch.optim.RMSprop(
            list(self.cell.parameters()) + list(self.readout.parameters()), lr=1e-2)
        self.hidden = hidden

    def run(self, series):
        h = torch.zeros(1, self.hidden)
        c = torch.zeros(1, self.hidden)
        for t in range(len(series) - 1):
            x = series[t].view(1, 1)
            h = h.detach()
            c = c.detach()
            h, c = self.cell(x, (h, c))
            pred = self.readout(h)
            loss = F.mse_loss(pred, series[t + 1].view(1, 1))
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            print(f"{t} loss {loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    series = torch.tensor([math.sin(0.3 * k) for k in range(ITERS + 1)])
    model = OnlinePredictor()
    model.run(series)
    print(f"checksum {sum(p.sum().item() for p in model.cell.parameters()):.6f}")
