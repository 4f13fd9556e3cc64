# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A notebook exported to a script: an epoch function takes the model and its
# optimizer, then a second experiment repeats the loop at module level with the
# same loss names and another model and optimizer. Walked at the call
# `fit(net, data, opt)`, the function's `optimizer.step()` is `opt.step()`, which
# steps `net`, the function's `model`: the gradients of the first backward are
# stepped, not zeroed, so the fix is retain_graph=True, never a detach that would
# stop the box head learning. That the heads share a graph is inferred (the
# forward is not followed element by element), so the retain is unsafe.
import os

import torch
import torch.nn.functional as F

from models import BoxNet, SmallNet

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def fit(model, loader, optimizer):
    for inputs, boxes, labels in loader:
        preds = model(inputs)
        box_loss = (preds[0] - boxes).abs().mean()
        cls_loss = F.cross_entropy(preds[1], labels)
        optimizer.zero_grad()
        box_loss.backward()
        cls_loss.backward()
        optimizer.step()


torch.manual_seed(0)
net = BoxNet()
opt = torch.optim.SGD(net.parameters(), lr=0.05)
data = [(torch.randn(5, 8), torch.randn(5, 4), torch.randint(0, 3, (5,))) for _ in range(ITERS)]
fit(net, data, opt)
print(f"first {sum(p.sum().item() for p in net.parameters()):.6f}")
small = SmallNet()
small_opt = torch.optim.SGD(small.parameters(), lr=0.05)
for step in range(ITERS):
    inputs, boxes, labels = data[step]
    preds = small(inputs)
    box_loss = (preds[0] - boxes).abs().mean()
    cls_loss = F.cross_entropy(preds[1], labels)
    small_opt.zero_grad()
    box_loss.backward(retain_graph=True)
    cls_loss.backward()
    small_opt.step()
print(f"second {sum(p.sum().item() for p in small.parameters()):.6f}")
