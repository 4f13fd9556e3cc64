# expect-before: grows
# autodetach-test: unsafe
# The same loop with soft scores taken from `from metrics import *`: `soft_dice`
# returns a tensor computed on the output, so the running sum keeps every
# batch's graph alive. Detaching where it is added changes no update; the fix is
# unsafe because the graph of `soft_iou` is inferred (it calls another helper,
# which is not followed).
import os

import torch
import torch.nn as nn

from metrics import *

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def train(net, optimizer, criterion, batches):
    dice_sum, iou_sum = 0.0, 0.0
    for x, y in batches:
        out = net(x)
        loss = criterion(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        dice_sum += soft_dice(out, y).detach()
        iou_sum += soft_iou(out, y).detach()
        print(f"loss {loss.item():.6f}")
    return dice_sum / len(batches), iou_sum / len(batches)


net = nn.Sequential(nn.Linear(6, 4), nn.Sigmoid())
opt = torch.optim.SGD(net.parameters(), lr=0.05)
data = [(torch.randn(8, 6), (torch.rand(8, 4) > 0.5).float()) for _ in range(ITERS)]
dice, iou = train(net, opt, nn.BCELoss(), data)
print(f"dice {float(dice):.6f} iou {float(iou):.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
