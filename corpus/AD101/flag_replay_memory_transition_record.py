# expect-before: grows
# An acting loop stores whole transitions, namedtuples that hold the policy's
# mean with its graph, in a replay memory whose `sample` hands them back; the
# replay reads the means only as a detached target, so every stored step's
# graph stays alive. Reported without a fix: a namedtuple has no `.detach()`
# (detach the tensors put into it).
import os
import random
from collections import namedtuple

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
Transition = namedtuple("Transition", ("obs", "mean", "reward"))


class Memory:
    def __init__(self):
        self.items = []

    def push(self, transition):
        self.items.append(transition)

    def sample(self, n):
        return random.sample(self.items, min(n, len(self.items)))


if __name__ == "__main__":
    torch.manual_seed(0)
    random.seed(0)
    policy = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 2))
    opt = torch.optim.SGD(policy.parameters(), lr=0.05)
    memory = Memory()
    for it in range(ITERS):
        obs = torch.randn(8, 4)
        mean = policy(obs)
        memory.push(Transition(obs=obs, mean=mean, reward=float(it)))
        batch = memory.sample(4)
        target = torch.stack([t.mean for t in batch]).detach().mean(0)
        loss = (policy(obs) - target).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"{it} loss {loss.item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in policy.parameters()):.6f}")
