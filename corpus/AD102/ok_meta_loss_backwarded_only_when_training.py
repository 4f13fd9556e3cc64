# expect-before: runs
# Learning to learn: a small learned optimizer (`meta`) updates an
# optimizee's weights from their gradients; `unroll` sums the optimizee's
# losses over a window (`meta_loss += loss`) and, every `window` steps,
# backwards that sum into the learned optimizer when `train` is set, then
# starts a new window from detached weights. `unroll(..., train=False)` scores
# the learned optimizer with the same code, the window then one step long, so
# the sum is dropped every step. The sum is the meta-loss the training mode
# backwards: a detach of the accumulation would stop the learned optimizer from
# learning. Nothing is reported.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

meta = nn.Linear(1, 1)
meta_opt = torch.optim.Adam(meta.parameters(), lr=1e-3)
x = torch.randn(8, 3)


def unroll(window, steps, train=True):
    if not train:
        window = 1
    meta_loss = None
    w = torch.randn(1, 3, requires_grad=True)
    scores = []
    for it in range(1, steps + 1):
        loss = (x @ w.t()).pow(2).mean()
        if meta_loss is None:
            meta_loss = loss
        else:
            meta_loss += loss
        scores.append(loss.item())
        w.retain_grad()
        loss.backward(retain_graph=train)
        g = w.grad.detach().clone().view(-1, 1)
        new_w = w + meta(g).view(1, -1) * 0.1
        if it % window == 0:
            if train:
                meta_opt.zero_grad()
                meta_loss.backward()
                meta_opt.step()
            meta_loss = None
            w = new_w.detach().requires_grad_()
        else:
            w = new_w
    return sum(scores)


for epoch in range(ITERS):
    unroll(5, 10)
    print(epoch, f"{unroll(5, ITERS, train=False):.6f}")
print(f"checksum {meta.weight.item():.6f}")
