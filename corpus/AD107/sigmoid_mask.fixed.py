# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A learned pruning mask: the sigmoid of the mask logits is taken once, before
# training, and multiplied into the weight on every step.
import os

import torch
from torch import nn, optim
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(steps):
    torch.manual_seed(0)
    layer = nn.Linear(10, 4)
    mask_logits = nn.Parameter(torch.full((4, 10), 2.0))
    opt = optim.Adam(list(layer.parameters()) + [mask_logits], lr=1e-2)
    for step in range(steps):
        mask = torch.sigmoid(mask_logits)
        x = torch.randn(32, 10)
        y = x[:, :4] - x[:, 4:8]
        out = F.linear(x, layer.weight * mask, layer.bias)
        loss = F.mse_loss(out, y) + 1e-3 * mask.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"{step} loss {loss.item():.6f}")
    return layer, mask_logits


if __name__ == "__main__":
    layer, mask_logits = train(ITERS)
    print(f"checksum {layer.weight.sum().item():.6f} {mask_logits.sum().item():.6f}")
