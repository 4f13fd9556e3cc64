import torch
import torch.nn.functional as F
from torch import nn

from act import StatAct


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.act, self.fc2 = nn.Linear(6, 12), StatAct(), nn.Linear(12, 1)

    def forward(self, x, collect):
        return self.fc2(self.act(self.fc1(x), collect))


torch.manual_seed(0)
net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.05)
for it in range(6):
    x, y = torch.randn(16, 6), torch.randn(16, 1)
    loss = F.mse_loss(net(x, it < 3), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(loss.item(), net.act.running_mean.item())
