# expect-before: grows
# autodetach-test: unsafe
# The same helper scored with soft predictions (`softmax` of the logits):
# its result hangs from the logits' graph, and the running score keeps every
# batch's graph alive. The fix is unsafe only because `model` and `optimizer`
# are inferred (parameters of `train`).
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def compute_score(logits, labels):
    return torch.softmax(logits, 1) * labels


def train(model, optimizer, batches):
    train_score = 0
    for x, a in batches:
        pred = model(x)
        loss = F.binary_cross_entropy_with_logits(pred, a)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        batch_score = compute_score(pred, a.data).sum()
        train_score += batch_score.detach()
        print(f"loss {loss.item():.6f}")
    return train_score


torch.manual_seed(0)
net = nn.Linear(6, 4)
opt = torch.optim.SGD(net.parameters(), lr=0.05)
data = [(torch.randn(8, 6), (torch.rand(8, 4) > 0.5).float()) for _ in range(ITERS)]
print(f"score {float(train(net, opt, data)):.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
