# expect-before: runs
# A helper backwards the class score it is handed with retain_graph=True to
# read an input-gradient map, and the training loop then backwards a loss on
# the same logits to train the network (saliency-guided training): that later
# backward walks the graph the helper retained. No finding.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def saliency_of(score, image):
    score.backward(retain_graph=True)
    return image.grad.abs().detach()


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 3))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for step in range(ITERS):
        image = torch.randn(1, 6, requires_grad=True)
        logits = net(image)
        sal = saliency_of(logits[0, 0], image)
        opt.zero_grad()
        loss = logits.pow(2).mean() + sal.mean()
        loss.backward()
        opt.step()
        print(step, f"{loss.item():.6f}")
