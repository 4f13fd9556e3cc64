# expect-before: runs
# A tutorial trains its weights by hand first (`w -= lr * w.grad` under
# no_grad) and keeps every step's loss in a list for a plot; a second loop
# further down trains the same weights with Adam. The hand-written update makes
# each iteration of the first loop a training step of its own: the list keeps
# one graph per step, and the Adam loop after it does not change that. (It
# runs: memory grows in the hand loop, where no optimizer step is counted.)
import os

import torch
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def net(x, w1, w2):
    return torch.relu(x @ w1) @ w2


w1 = torch.randn(16, 32, requires_grad=True)
w2 = torch.randn(32, 4, requires_grad=True)
lr = 0.01
losses = []
for i in range(ITERS):
    x = torch.randn(64, 16)
    y = torch.randint(0, 4, (64,))
    loss = F.cross_entropy(net(x, w1, w2), y)
    losses.append(loss)
    loss.backward()
    with torch.no_grad():
        w1 -= lr * w1.grad
        w2 -= lr * w2.grad
        w1.grad.zero_()
        w2.grad.zero_()
print(f"hand-trained mean loss {sum(float(v) for v in losses) / len(losses):.6f}")

adam_losses = []
opt = torch.optim.Adam([w1, w2], lr=1e-3)
for i in range(ITERS):
    x = torch.randn(64, 16)
    y = torch.randint(0, 4, (64,))
    loss = F.cross_entropy(net(x, w1, w2), y)
    adam_losses.append(loss.item())
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"adam last loss {adam_losses[-1]:.6f}")
print(f"checksum {w1.sum().item() + w2.sum().item():.6f}")
