# expect-before: error Trying to backward through the graph a second time
# An autoregressive forecaster (DeepAR style): a
# missing observation is replaced, in place in the batch, by the last
# prediction, but the test `missing.any()` does not skip the window's first
# step, so the first missing value of a batch is filled with the previous
# batch's last prediction, whose graph that batch's backward freed. Detaching
# it where it is written would also cut this batch's own chain: reported
# without a fix.
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
    pred = torch.zeros(3)
    for batch, target in batches:
        batch = batch.permute(1, 0, 2).clone()
        h = torch.zeros(batch.shape[1], 8)
        c = torch.zeros(batch.shape[1], 8)
        loss = torch.zeros(1)
        for t in range(window):
            missing = batch[t, :, 0] == 0
            if missing.any():
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
        x[:, 0:2, 0] = 0.0  # missing observations
        data.append((x, torch.randn(3, 5)))
    print(f"loss {sum(train(net, data, opt)):.6f}")
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
