# expect-before: runs
# A script whose test pass after each epoch runs with gradients on (in the
# 0.3 original, `Variable(..., volatile=True)` turned them off; volatile does
# nothing since 0.4): every test batch builds a graph through `net`, and
# `total_loss` keeps them all until the mean is printed. `.item()` is read
# from the total, so it stays a tensor: `.detach()`.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))

torch.manual_seed(0)
train_loader = [(torch.randn(8, 5), torch.randint(0, 3, (8,))) for _ in range(ITERS)]
test_loader = [(torch.randn(8, 5), torch.randint(0, 3, (8,))) for _ in range(ITERS)]

net = nn.Sequential(nn.Linear(5, 12), nn.ReLU(), nn.Linear(12, 3))
opt = torch.optim.Adam(net.parameters(), lr=0.01)
loss_func = nn.CrossEntropyLoss()

for epoch in range(2):
    for img, label in train_loader:
        loss = loss_func(net(img), label)
        net.zero_grad()
        loss.backward()
        opt.step()

    net.eval()
    total_loss = 0
    for img, label in test_loader:
        loss = loss_func(net(img), label)
        total_loss += loss.detach()
    net.train()
    mean_loss = total_loss / len(test_loader)
    print("epoch %d test loss %.6f" % (epoch, mean_loss.item()))
