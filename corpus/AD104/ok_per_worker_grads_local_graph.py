# expect-before: runs
# A policy update that collects one gradient per worker (GeoffPAC-style):
# after the value step it recomputes the forward, then backwards each worker's
# log-probability in turn with retain_graph=True, the last one included. Every
# backward but the last needs the retain; the last one keeps the graph only
# until `update()` returns, since `out` and `logp` are locals read elsewhere
# only through `.detach()`. Nothing is kept a step: nothing to report.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 8)
        self.pi = nn.Linear(8, 3)
        self.v = nn.Linear(8, 1)

    def forward(self, s):
        h = torch.tanh(self.body(s))
        return {"log_pi": torch.log_softmax(self.pi(h), -1)[:, 0], "v": self.v(h).squeeze(-1)}


class Agent:
    def __init__(self, network, n_workers):
        self.network = network
        self.n_workers = n_workers
        self.optimizer = torch.optim.SGD(network.parameters(), lr=0.05)

    def update(self, s, r):
        out = self.network(s)
        v_loss = (r - out["v"]).pow(2).mean()
        self.optimizer.zero_grad()
        v_loss.backward()
        self.optimizer.step()

        out = self.network(s)
        weight = out["v"].detach()
        logp = out["log_pi"]
        grads = [torch.zeros_like(p) for p in self.network.parameters()]
        for i in range(self.n_workers):
            self.optimizer.zero_grad()
            logp[i].backward(retain_graph=True)
            for g, p in zip(grads, self.network.parameters()):
                if p.grad is not None:
                    g.add_(p.grad * weight[i])
        self.optimizer.zero_grad()
        for g, p in zip(grads, self.network.parameters()):
            p.grad = -g / self.n_workers
        self.optimizer.step()
        return v_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    agent = Agent(Net(), 4)
    for step in range(ITERS):
        print(step, f"{agent.update(torch.randn(4, 6), torch.randn(4)):.6f}")
    print(f"checksum {sum(p.sum().item() for p in agent.network.parameters()):.6f}")
