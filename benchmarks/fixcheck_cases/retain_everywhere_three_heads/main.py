# Three heads on one shared body, each loss backwarded with
# retain_graph=True (the "retain everywhere" habit). Only the last retain
# is unneeded; dropping it gives the same numbers.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
body = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
heads = nn.ModuleDict({k: nn.Linear(16, 1) for k in ("a", "b", "c")})
opt = torch.optim.Adam([*body.parameters(), *heads.parameters()], lr=1e-3)
for it in range(6):
    x, t = torch.randn(32, 8), torch.randn(32, 3)
    z = body(x)
    opt.zero_grad()
    for i, k in enumerate(("a", "b", "c")):
        loss = F.mse_loss(heads[k](z), t[:, i:i + 1])
        loss.backward(retain_graph=True)
    opt.step()
print(loss.item())
