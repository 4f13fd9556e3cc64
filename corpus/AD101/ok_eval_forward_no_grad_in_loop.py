# expect-before: runs
# An evaluation loop sums a metric the model computes from its log
# probabilities (`model.test(...)`), and the forward that makes them runs under
# `torch.no_grad()` inside the loop: the sum carries no graph. (A `no_grad`
# block that only makes fresh tensors before a loop does not guard it; one
# around the forward does.)
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(8, 5)

    def forward(self, x):
        return F.log_softmax(self.l(x), dim=-1)

    def test(self, log_prob, target):
        rank = (log_prob > log_prob.gather(1, target.view(-1, 1))).sum(1) + 1
        return torch.tensor([(1.0 / rank.float()).mean(), (rank <= 1).float().mean()])


model = Scorer()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
loader = [(torch.randn(16, 8), torch.randint(0, 5, (16,))) for _ in range(ITERS)]


def train():
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.nll_loss(model(x), y)
        loss.backward()
        optimizer.step()


def test():
    model.eval()
    result = torch.tensor([0, 0], dtype=torch.float)
    for x, y in loader:
        with torch.no_grad():
            log_prob = model(x)
        result += model.test(log_prob, y) * y.size(0)
    return (result / (len(loader) * 16)).tolist()


for epoch in range(ITERS):
    train()
    mrr, hits = test()
    print(f"epoch {epoch} mrr {mrr:.6f} hits {hits:.6f}")
