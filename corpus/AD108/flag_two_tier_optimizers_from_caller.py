# expect-before: error modified by an inplace operation
# Two-tier multiple-instance learning: the training function receives its
# optimizers from the caller, which builds the first from the parameters of
# three modules collected with `+=`. The second tier's input is gathered in
# an inner loop before the first tier's step and backwarded after it.
import os

import torch
from torch import nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train_epoch(bags, reducer, attention, classifier, head, optimizer0, optimizer1):
    for feats, label in bags:
        pseudo, preds = [], []
        for chunk in feats.chunk(3):
            mid = reducer(chunk)
            weights = torch.softmax(attention(mid).squeeze(1), dim=0)
            pooled = (mid * weights.unsqueeze(1)).sum(0, keepdim=True)
            preds.append(classifier(pooled))
            pseudo.append(pooled)
        loss0 = F.cross_entropy(torch.cat(preds), label.repeat(len(preds)))
        optimizer0.zero_grad()
        loss0.backward(retain_graph=True)
        optimizer0.step()
        loss1 = F.cross_entropy(head(torch.cat(pseudo).mean(0, keepdim=True)), label)
        optimizer1.zero_grad()
        loss1.backward()
        optimizer1.step()
        print(f"loss0 {loss0.item():.6f} loss1 {loss1.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    reducer = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
    attention = nn.Sequential(nn.Linear(16, 8), nn.Tanh(), nn.Linear(8, 1))
    classifier, head = nn.Linear(16, 2), nn.Linear(16, 2)
    tier0 = []
    tier0 += list(reducer.parameters())
    tier0 += list(attention.parameters())
    tier0 += list(classifier.parameters())
    optimizer_tier0 = torch.optim.SGD(tier0, lr=0.05)
    optimizer_tier1 = torch.optim.SGD(head.parameters(), lr=0.05)
    bags = [(torch.randn(12, 8), torch.tensor([i % 2])) for i in range(ITERS)]
    train_epoch(bags, reducer, attention, classifier, head, optimizer_tier0, optimizer_tier1)
    print(f"checksum {sum(p.sum().item() for p in reducer.parameters()):.6f}")
