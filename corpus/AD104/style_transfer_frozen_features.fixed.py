# expect-before: runs
# autodetach-test: unsafe
# Neural style transfer: the feature network is frozen (every parameter's
# requires_grad switched off) before the content and style targets are
# computed, once, before the loop; each epoch recomputes the input image's
# features and backwards the loss with retain_graph=True. The targets carry
# no graph, so nothing backwards an epoch's graph again: the retain keeps it
# alive for nothing. That the targets carry no graph is inferred from the
# freeze, so the fix is unsafe.
import os

import torch
from torch import nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3, padding=1), nn.ReLU())
for param in features.parameters():
    param.requires_grad_(False)


def get_features(x, model):
    out = {}
    for i, layer in enumerate(model.children()):
        x = layer(x)
        out[str(i)] = x
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
    content_loss = (image_features["3"] - content_features["3"]).pow(2).mean()
    style_loss = sum((gram(image_features[k]) - gram(style_features[k])).pow(2).mean() for k in ("1", "3"))
    loss = content_loss + 0.1 * style_loss
    loss.backward()
    opt.step()
    print(epoch, f"{loss.item():.6f}")
print(f"checksum {image.sum().item():.6f}")
