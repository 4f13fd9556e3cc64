import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model1 = nn.Sequential(nn.Linear(6, 12), nn.ReLU())
model2 = nn.Linear(12, 3)
opt1 = torch.optim.SGD(model1.parameters(), lr=0.05)
opt2 = torch.optim.SGD(model2.parameters(), lr=0.05)
opt2.add_param_group({"params": model1.parameters(), "lr": 0.01})
for i in range(5):
    x, y = torch.randn(8, 6), torch.randint(0, 3, (8,))
    h = model1(x)
    out = model2(h)
    opt2.zero_grad()
    loss2 = F.cross_entropy(out, y)
    loss2.backward()
    opt2.step()
    opt1.zero_grad()
    loss1 = h.pow(2).mean()
    loss1.backward()
    opt1.step()
print(loss1.item(), loss2.item())
