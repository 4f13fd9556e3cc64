# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# Neural style transfer with loss modules inside the network: a capture pass
# runs the style image through it once (the weights are frozen only after),
# and the style module keeps the target Gram matrix it saw, with that pass's
# graph. Every optimisation step compares the image's Gram matrix with it.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def gram(features):
    b, c, h, w = features.size()
    flat = features.view(b * c, h * w)
    return flat @ flat.t() / (c * h * w)


class StyleLoss(nn.Module):
    def __init__(self, strength):
        super().__init__()
        self.strength = strength
        self.mode = "none"
        self.crit = nn.MSELoss()
        self.loss = 0

    def forward(self, input):
        if self.mode == "capture":
            self.target = (gram(input) * self.strength).detach()
        elif self.mode == "loss":
            self.loss = self.crit(gram(input) * self.strength, self.target)
        return input


def build():
    torch.manual_seed(0)
    style = StyleLoss(10.0)
    net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), style, nn.Conv2d(4, 4, 3, padding=1))
    return net, style


def transfer(steps):
    net, style = build()
    style_image = torch.rand(1, 3, 8, 8)
    style.mode = "capture"
    net(style_image)
    style.mode = "loss"
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
