# expect-before: grows
# autodetach-test: unsafe
# A running average from the project's meters.py: `update_value` rebuilds
# the stored average from itself and the value it is given (`avg * n +
# value`). train() hands it a score computed from the attention weights of
# the training forward, which carry the graph, so the average chains every
# step's graph until the epoch ends. What the meter keeps is inferred from
# its code in another file: the fix is offered as unsafe.
import os

import torch
import torch.nn as nn

from meters import KeepAverage

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Attender(nn.Module):
    def __init__(self):
        super().__init__()
        self.query = nn.Linear(6, 6)
        self.out = nn.Linear(6, 2)

    def forward(self, x):
        weights = torch.softmax(self.query(x) @ x.transpose(1, 2), dim=-1)
        return self.out(weights @ x).mean(1), weights


def diagonal_score(weights):
    return weights.max(dim=1)[0].mean(dim=1).mean(dim=0)


def train(model, loader, optimizer):
    keep_avg = KeepAverage()
    keep_avg.add_value("loss")
    keep_avg.add_value("score")
    for x, y in loader:
        out, weights = model(x)
        loss = nn.functional.mse_loss(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        score = diagonal_score(weights)
        keep_avg.update_value("score", score)
        keep_avg.update_value("loss", loss.item())
        print(f"loss {loss.item():.6f}")
    return keep_avg["loss"], float(keep_avg["score"])


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Attender()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    data = [(torch.randn(4, 5, 6), torch.randn(4, 2)) for _ in range(ITERS)]
    mean_loss, mean_score = train(model, data, opt)
    print(f"mean loss {mean_loss:.6f} score {mean_score:.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
