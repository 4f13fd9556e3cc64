# expect-before: runs
# 0.3-era weight init and gradient clipping under their old names.
import torch
import torch.nn as nn
from torch.nn import init


def init_weights(m):
    if isinstance(m, nn.Linear):
        init.xavier_uniform_(m.weight, gain=init.calculate_gain("relu"))
        init.constant_(m.bias, 0.1)


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
net.apply(init_weights)
nn.init.orthogonal_(net[2].weight)
x = torch.randn(10, 4)
loss = net(x).pow(2).sum()
loss.backward()
norm = nn.utils.clip_grad_norm_(net.parameters(), 1.0)
print("norm %.6f" % float(norm))
print("w %.6f" % net[0].weight.sum().item(), "g %.6f" % net[0].weight.grad.abs().sum().item())
