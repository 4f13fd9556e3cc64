# expect-before: runs
# The negative of lbfgs_closure_features: the closure computes the features
# itself, so each of LBFGS's runs builds its own graph; the constant target
# made before the steps carries no graph.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def fit(model, x, y, steps):
    opt = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=4)
    target = (y * 2.0).clamp(-1, 1)

    def closure():
        opt.zero_grad()
        feats = model[0](x)
        loss = ((model[2](torch.relu(feats)) - target) ** 2).mean()
        loss.backward()
        return loss

    for _ in range(steps):
        loss = opt.step(closure)
        print(f"loss {loss.item():.6f}")
    return model


torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
fit(net, torch.randn(16, 4), torch.randn(16, 1), ITERS)
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
