# expect-before: runs
# A feature-matching target computed once, before the loop, by a helper that
# calls the network it is handed (`def feats(x, model): return model(x)`) on
# an input with no graph: the target still hangs from the network's weights,
# each step's backward walks that graph again, so the retain is needed. The
# network is stepped too (it is in the optimizer). No finding.
import os

import torch
from torch import nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def feats(x, model):
    return model(x)


features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU())
content = torch.rand(1, 3, 8, 8)
target = feats(content, model=features)
image = content.clone().requires_grad_(True)
opt = torch.optim.Adam([image], lr=0.01)
for epoch in range(ITERS):
    opt.zero_grad()
    loss = (feats(image, features) - target).pow(2).mean()
    loss.backward(retain_graph=True)
    opt.step()
    print(epoch, f"{loss.item():.6f}")
print(f"checksum {image.sum().item():.6f}")
