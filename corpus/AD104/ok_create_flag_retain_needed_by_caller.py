# expect-before: runs
# The same kind of fit helper (`create_graph=create_graph, retain_graph=True`),
# but it returns the prediction, and a caller that passes create_graph=False
# backwards a second loss on that prediction afterwards (a consistency term):
# with create_graph false, only the retain keeps the graph for that backward.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class SineNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(1, 32)
        self.out = nn.Linear(32, 1)

    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))


def fit(net, x, y, create_graph=False):
    pred = net(x)
    loss = F.mse_loss(pred, y)
    loss.backward(create_graph=create_graph, retain_graph=True)
    return pred


net = SineNet()
optim = torch.optim.SGD(net.parameters(), lr=1e-2)
for step in range(ITERS):
    x = torch.rand(16, 1) * 10 - 5
    y = torch.sin(x)
    optim.zero_grad()
    pred = fit(net, x, y)
    smooth = (pred[1:] - pred[:-1]).pow(2).mean()
    smooth.backward()
    optim.step()
    print(f"{step} smooth {smooth.item():.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
