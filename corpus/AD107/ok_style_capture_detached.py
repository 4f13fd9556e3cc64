# expect-before: runs
# Style targets captured per mask: each capture detaches the Gram matrix it
# keeps, and the features the loss pass keeps on the module are replaced by
# every call, so no optimisation step reaches the capture pass's graph.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def gram(features):
    b, c, h, w = features.size()
    flat = features.view(b * c, h * w)
    return flat @ flat.t() / (c * h * w)


class MaskedStyleLoss(nn.Module):
    def __init__(self, masks, strength):
        super().__init__()
        self.masks = masks
        self.strength = strength
        self.targets = []
        self.features = []
        self.capture = False
        self.loss = 0

    def forward(self, input):
        self.loss = 0
        for j, mask in enumerate(self.masks):
            feature = input * mask.expand(input.size())
            if self.capture:
                self.targets.append(gram(feature).detach())
                self.features.append(feature)
            else:
                self.features[j] = feature
                self.loss += self.strength * nn.functional.mse_loss(gram(self.features[j]), self.targets[j])
        return input


def transfer(steps):
    torch.manual_seed(0)
    masks = [torch.rand(1, 1, 8, 8).round(), torch.rand(1, 1, 8, 8).round()]
    style = MaskedStyleLoss(masks, 10.0)
    net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), style)
    style.capture = True
    net(torch.rand(1, 3, 8, 8))
    style.capture = False
    for param in net.parameters():
        param.requires_grad = False
    img = nn.Parameter(torch.rand(1, 3, 8, 8))
    optimizer = torch.optim.Adam([img], lr=0.05)
    for step in range(steps):
        optimizer.zero_grad()
        net(img)
        loss = style.loss
        loss.backward()
        optimizer.step()
        print(f"{step} loss {loss.item():.6f}")
    return img


if __name__ == "__main__":
    transfer(ITERS)
