# expect-before: grows
# A step function (`loss_batch`: backward and step inside) returns the loss as a
# number and, beside it, the batch's dice score, computed from the same output
# with its graph. The epoch loop sums the scores (`running_metric += metric_b`)
# for the log: every batch's metric graph (the sigmoid and products it saved)
# stays alive until the epoch ends.
# A running total of what a step returns beside the loss it backwards is kept
# for the log like a loss total; nothing backwards it, so `.detach()` changes
# no update.
import os

import torch
from torch import nn, optim
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def dice_parts(pred, target):
    inter = (pred * target).sum(dim=1)
    union = pred.sum(dim=1) + target.sum(dim=1)
    dice = 2.0 * (inter + 1e-5) / (union + 1e-5)
    return (1.0 - dice).sum(), dice.sum()


def loss_func(pred, target):
    bce = F.binary_cross_entropy_with_logits(pred, target, reduction="sum")
    dlv, _ = dice_parts(torch.sigmoid(pred), target)
    return bce + dlv


def loss_batch(output, target, opt=None):
    loss = loss_func(output, target)
    _, metric_b = dice_parts(torch.sigmoid(output), target)
    if opt is not None:
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item(), metric_b


def loss_epoch(model, batches, opt=None):
    running_loss = 0.0
    running_metric = 0.0
    for xb, yb in batches:
        output = model(xb)
        loss_b, metric_b = loss_batch(output, yb, opt)
        running_loss += loss_b
        if metric_b is not None:
            running_metric += metric_b.detach()
    return running_loss / len(batches), running_metric / len(batches)


model = nn.Linear(6, 5)
opt = optim.Adam(model.parameters(), lr=3e-4)
batches = [(torch.randn(3, 6), torch.rand(3, 5).round()) for _ in range(ITERS)]
model.train()
train_loss, train_metric = loss_epoch(model, batches, opt)
print("%.6f %.6f" % (train_loss, float(train_metric)))
