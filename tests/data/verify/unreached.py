# The rewritten code is in a function nobody calls.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def evaluate_forever(x):
    total = 0
    for _ in range(3):
        total = total + model(x).sum()
    return total


if __name__ == "__main__":
    for it in range(5):
        loss = model(torch.randn(4, 3)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"{it} {loss.item():.6f}")
