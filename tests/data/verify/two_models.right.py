# Two models chained, ONE optimizer over both, two losses. The first backward
# frees model1's part of the graph, which the second backward needs.
import torch
import torch.nn as nn

torch.manual_seed(0)
model1 = nn.Sequential(nn.Linear(6, 8), nn.Tanh())
model2 = nn.Linear(8, 1)
opt = torch.optim.SGD(list(model1.parameters()) + list(model2.parameters()), lr=0.1)

for it in range(6):
    x = torch.randn(16, 6)
    feats = model1(x)
    y = model2(feats)
    loss1 = feats.pow(2).mean()
    loss2 = (y - 1.0).pow(2).mean()
    opt.zero_grad()
    loss1.backward(retain_graph=True)
    loss2.backward()
    opt.step()
    print(f"{it} {loss1.item():.6f} {loss2.item():.6f}")
