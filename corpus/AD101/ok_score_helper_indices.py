# expect-before: runs
# A helper of the same file scores each batch from the predicted classes
# (`argmax` of the logits, scattered into a one-hot) against labels passed as
# `.data`: its result hangs from no graph, so the running score keeps none.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def compute_score(logits, labels):
    logits = torch.argmax(logits, 1)
    one_hots = torch.zeros(*labels.size())
    one_hots.scatter_(1, logits.view(-1, 1), 1)
    return one_hots * labels


def train(model, optimizer, batches):
    train_score = 0
    for x, a in batches:
        pred = model(x)
        loss = F.binary_cross_entropy_with_logits(pred, a)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        batch_score = compute_score(pred, a.data).sum()
        train_score += batch_score
        print(f"loss {loss.item():.6f}")
    return train_score


torch.manual_seed(0)
net = nn.Linear(6, 4)
opt = torch.optim.SGD(net.parameters(), lr=0.05)
data = [(torch.randn(8, 6), (torch.rand(8, 4) > 0.5).float()) for _ in range(ITERS)]
print(f"score {float(train(net, opt, data)):.6f}")
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
