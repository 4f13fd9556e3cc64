# expect-before: runs
# An autoregressive forecaster (DeepAR style): each batch starts its state
# afresh and walks the window step by step; a missing observation at step t is
# replaced, in place in the batch, by the prediction of step t-1. The test
# `t > 0 and missing.any()` is false on the window's first step, so the
# prediction written into the batch always comes from this batch's own window:
# nothing reaches the previous batch's freed graph.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class StepModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.LSTMCell(2, 8)
        self.out = nn.Linear(8, 1)

    def forward(self, x, h, c):
        h, c = self.cell(x, (h, c))
        return self.out(h).squeeze(1), h, c


def train(model, batches, optimizer, window=5):
    losses = []
    for batch, target in batches:
        batch = batch.permute(1, 0, 2).clone()
        h = torch.zeros(batch.shape[1], 8)
        c = torch.zeros(batch.shape[1], 8)
        loss = torch.zeros(1)
        for t in range(window):
            missing = batch[t, :, 0] == 0
            if t > 0 and missing.any():
                batch[t, missing, 0] = pred[missing]
            pred, h, c = model(batch[t].clone(), h, c)
            loss += ((pred - target[:, t]) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


if __name__ == "__main__":
    torch.manual_seed(0)
    net = StepModel()
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    data = []
    for _ in range(ITERS):
        x = torch.randn(3, 5, 2)
        x[:, 2:4, 0] = 0.0  # missing observations
        data.append((x, torch.randn(3, 5)))
    print(f"loss {sum(train(net, data, opt)):.6f}")
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
