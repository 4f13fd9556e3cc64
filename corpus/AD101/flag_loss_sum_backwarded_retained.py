# expect-before: error one of the variables needed for gradient computation has been modified by an inplace operation
# A training function sums the epoch's losses with their graphs and
# backwards the running sum each step; retain_graph=True silences "backward
# through the graph a second time", but the second step walks the first
# step's graph, whose saved weights the optimizer has since changed in place.
# (With a model that saves no weights it runs: each step's gradient then
# adds every earlier loss, and memory and time per step grow.) No fix is offered: detaching the sum would leave nothing to
# backward, and backwarding only this step's loss changes the updates.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train_epoch(model, optimizer, batches):
    total_loss = 0
    for x, y in batches:
        out = model(x)
        loss = nn.functional.mse_loss(out, y)
        total_loss = total_loss + loss
        optimizer.zero_grad()
        total_loss.backward(retain_graph=True)
        optimizer.step()
    return total_loss.item()


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.01)
data = [(torch.randn(16, 4), torch.randn(16, 1)) for _ in range(ITERS)]
print(round(train_epoch(net, opt, data), 6))
