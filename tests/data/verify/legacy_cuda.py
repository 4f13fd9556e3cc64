# PyTorch 0.3-era code that assumes a GPU: .cuda() everywhere, and loss.data[0].
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(4, 1).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
device = torch.device("cuda")
for it in range(5):
    x = torch.randn(8, 4).cuda()
    y = torch.zeros(8, 1, device="cuda")
    loss = (model(x.to("cuda")) - y.to(device)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(it, loss.data[0])
