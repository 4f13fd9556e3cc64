# Gradient accumulation over micro-batches where a context vector is
# computed ONCE per step from the parameters (a learned prompt through a
# small MLP) and used by every micro-batch's backward: the second micro
# backward needs the context graph the first freed. Both micro-batches'
# gradients reach the prompt: retain_graph=True (not a detach) is the fix.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Prompted(nn.Module):
    def __init__(self):
        super().__init__()
        self.prompt = nn.Parameter(torch.randn(8) * 0.1)
        self.proj = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
        self.body = nn.Linear(8, 3)

    def context(self):
        return self.proj(self.prompt)

    def forward(self, x, ctx):
        return self.body(x + ctx)


def main():
    torch.manual_seed(0)
    model = Prompted()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    accum = 4
    for step in range(5):
        x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
        opt.zero_grad()
        ctx = model.context()
        for xb, yb in zip(x.chunk(accum), y.chunk(accum)):
            loss = F.cross_entropy(model(xb, ctx), yb) / accum
            loss.backward()
        opt.step()
    print(loss.item())


if __name__ == "__main__":
    main()
