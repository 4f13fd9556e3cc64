# expect-before: runs
# Style transfer whose targets are computed before the loop by a helper that
# runs the network it is handed layer by layer (`for i, layer in
# enumerate(model)`), and the network is never frozen: the targets hang from
# its weights, every epoch's backward walks that graph again, and the retain
# is what lets the second epoch run. No finding (dropping it crashes).
import os

import torch
from torch import nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3, padding=1), nn.ReLU())


def get_features(x, model):
    out = {}
    for i, layer in enumerate(model):
        x = layer(x)
        out[i] = x
    return out


def gram(x):
    n, c, h, w = x.size()
    x = x.view(n * c, h * w)
    return x @ x.t()


content = torch.rand(1, 3, 8, 8)
style = torch.rand(1, 3, 8, 8)
content_features = get_features(content, features)
style_features = get_features(style, features)
image = content.clone().requires_grad_(True)
opt = torch.optim.Adam([image], lr=0.01)
for epoch in range(ITERS):
    opt.zero_grad()
    image_features = get_features(image, features)
    content_loss = (image_features[3] - content_features[3]).pow(2).mean()
    style_loss = sum((gram(image_features[k]) - gram(style_features[k])).pow(2).mean() for k in (1, 3))
    loss = content_loss + 0.1 * style_loss
    loss.backward(retain_graph=True)
    opt.step()
    print(epoch, f"{loss.item():.6f}")
print(f"checksum {image.sum().item():.6f}")
