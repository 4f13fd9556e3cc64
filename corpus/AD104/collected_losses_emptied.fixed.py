# expect-before: runs
# autodetach-test: unsafe
# An agent collects per-step losses through a method, and its update method
# sums them, backwards once with retain_graph=True and empties the list.
# Nothing walks that graph again. That the list is filled by other code and
# emptied here is inferred from this file, so the fix is offered as unsafe.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
        self.optimizer = torch.optim.SGD(self.parameters(), lr=0.01)
        self.losses = []

    def forward(self, x):
        return self.body(x)

    def record(self, loss):
        self.losses.append(loss.unsqueeze(0))

    def update(self):
        loss = torch.cat(self.losses).sum()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.losses = []
        return loss.item()


def main():
    torch.manual_seed(0)
    agent = Agent()
    for episode in range(ITERS):
        for t in range(5):
            x = torch.randn(3, 4)
            agent.record((agent(x) - 1.0).pow(2).mean())
        print(f"{episode} loss {agent.update():.6f}")
    print(f"checksum {sum(p.sum().item() for p in agent.parameters()):.6f}")


if __name__ == "__main__":
    main()
