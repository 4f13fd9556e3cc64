# expect-before: runs
# The same per-worker gradients, with the update's batches looped over inside
# the method: the last worker's backward retains too, and `out` and `logp`
# keep that graph alive through the final step until the next batch rebinds
# them. Every backward but the last needs the retain; the fix retains only
# while `i < self.n_workers - 1`.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 8)
        self.pi = nn.Linear(8, 3)

    def forward(self, s):
        return torch.log_softmax(self.pi(torch.tanh(self.body(s))), -1)[:, 0]


class Agent:
    def __init__(self, network, n_workers):
        self.network = network
        self.n_workers = n_workers
        self.optimizer = torch.optim.SGD(network.parameters(), lr=0.05)

    def update(self, batches):
        for s, adv in batches:
            logp = self.network(s)
            grads = [torch.zeros_like(p) for p in self.network.parameters()]
            for i in range(self.n_workers):
                self.optimizer.zero_grad()
                logp[i].backward(retain_graph=True)
                for g, p in zip(grads, self.network.parameters()):
                    g.add_(p.grad * adv[i])
            self.optimizer.zero_grad()
            for g, p in zip(grads, self.network.parameters()):
                p.grad = -g / self.n_workers
            self.optimizer.step()
            print(f"{logp.sum().item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    agent = Agent(Net(), 4)
    agent.update([(torch.randn(4, 6), torch.randn(4)) for _ in range(ITERS)])
    print(f"checksum {sum(p.sum().item() for p in agent.network.parameters()):.6f}")
