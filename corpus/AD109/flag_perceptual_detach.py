# expect-before: runs
# Style-transfer style training: the transformer's output is detached before
# the feature extractor (which no optimizer owns), so the perceptual loss
# never reaches the transformer that the optimizer steps.
import os

import torch
from torch import nn, optim
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class TransformerNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 3, 3, padding=1)

    def forward(self, x):
        return self.conv2(F.relu(self.conv1(x)))


def gram(f):
    b, c, h, w = f.shape
    f = f.view(b, c, h * w)
    return f @ f.transpose(1, 2) / (c * h * w)


def main():
    torch.manual_seed(0)
    transformer = TransformerNet()
    features = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1))
    optimizer = optim.Adam(transformer.parameters(), lr=1e-3)
    style = torch.rand(1, 3, 16, 16)
    with torch.no_grad():
        style_gram = gram(features(style))
    for it in range(ITERS):
        content = torch.rand(2, 3, 16, 16)
        stylized = transformer(content)
        feats = features(stylized.detach())
        content_loss = F.mse_loss(feats, features(content))
        style_loss = F.mse_loss(gram(feats), style_gram.expand(2, -1, -1))
        loss = content_loss + 10.0 * style_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"{it} loss {loss.item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in transformer.parameters()):.6f}")


if __name__ == "__main__":
    main()
