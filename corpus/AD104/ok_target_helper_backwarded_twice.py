# expect-before: runs
# A helper backwards the logits it is handed with retain_graph=True, and its
# caller hands it the same logits twice (the top class, then the runner-up)
# before a fresh forward: the second call walks the graph the first one
# retained. No finding.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def backprop_score(output, target):
    one_hot = torch.zeros_like(output)
    one_hot[0, target] = 1.0
    output.backward(gradient=one_hot, retain_graph=True)


if __name__ == "__main__":
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 3))
    for step in range(ITERS):
        image = torch.randn(1, 6, requires_grad=True)
        logits = net(image)
        top2 = logits.topk(2).indices[0].tolist()
        backprop_score(logits, top2[0])
        first = image.grad.abs().sum().item()
        image.grad = None
        backprop_score(logits, top2[1])
        print(step, f"{first:.6f} {image.grad.abs().sum().item():.6f}")
