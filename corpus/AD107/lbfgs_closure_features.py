# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A fitting function computes the first layer's features once, before the
# steps, and the LBFGS closure reads them. LBFGS runs the closure several
# times per step: the second run backwards through the features' freed graph.
# The features belong inside the closure, not inside the loop.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def fit(model, x, y, steps):
    opt = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=4)
    feats = model[0](x)

    def closure():
        opt.zero_grad()
        loss = ((model[2](torch.relu(feats)) - y) ** 2).mean()
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
