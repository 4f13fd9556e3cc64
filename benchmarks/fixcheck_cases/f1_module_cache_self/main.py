import torch
import torch.nn as nn


class Smoother(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(5, 10), nn.Tanh(), nn.Linear(10, 5))
        self.prev = None

    def forward(self, x):
        out = self.body(x)
        penalty = torch.zeros(())
        if self.prev is not None:
            penalty = (out - self.prev).pow(2).mean()
        self.prev = out
        return out, penalty


def main():
    torch.manual_seed(0)
    model = Smoother()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for t in range(6):
        x = torch.randn(4, 5)
        out, penalty = model(x)
        loss = (out - x).pow(2).mean() + 0.1 * penalty
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(loss.item())


if __name__ == "__main__":
    main()
