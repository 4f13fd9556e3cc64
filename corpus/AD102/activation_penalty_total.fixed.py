# expect-before: grows
# The trainer logs the activation energy of the hidden layer per epoch; the
# running tensor keeps each step's pow node and the activations it saved. The
# energy is one number reduced from the model's output, which the step's
# backward walks: a statistic kept for the log, like a loss total (AD102).
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 40)
        self.fc2 = nn.Linear(40, 3)

    def forward(self, x):
        hidden = torch.relu(self.fc1(x))
        return self.fc2(hidden), hidden


class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.05)
        self.loss_fn = nn.CrossEntropyLoss()

    def fit(self, iters):
        act_total = torch.zeros(())
        for it in range(iters):
            x = torch.randn(24, 10)
            y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
            logits, hidden = self.model(x)
            loss = self.loss_fn(logits, y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            act_total += hidden.pow(2).mean().detach()
            print(f"{it} loss {loss.item():.6f}")
        return act_total.item() / iters


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Net()
    energy = Trainer(model).fit(ITERS)
    print(f"activation energy {energy:.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
