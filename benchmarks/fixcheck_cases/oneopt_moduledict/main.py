import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
nets = nn.ModuleDict({
    "G": nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8)),
    "D": nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1)),
})
optim = torch.optim.RMSprop(nets.parameters(), lr=1e-3)

for i in range(6):
    real = torch.randn(16, 8)
    fake = nets["G"](torch.randn(16, 4))
    optim.zero_grad()
    loss_d = F.binary_cross_entropy_with_logits(nets["D"](real), torch.ones(16, 1)) + \
        F.binary_cross_entropy_with_logits(nets["D"](fake), torch.zeros(16, 1))
    loss_d.backward()
    loss_g = F.binary_cross_entropy_with_logits(nets["D"](fake), torch.ones(16, 1))
    loss_g.backward()
    optim.step()
print(loss_d.item(), loss_g.item())
