# expect-before: grows
# autodetach-test: unsafe
# An acting step stores the policy's mean, still attached to that step's
# graph, in a replay memory whose `sample` hands entries back; the update
# reads them only as a detached target, so every stored step's graph stays
# alive. What `Memory.add` keeps is inferred from its code, and what reads
# the sampled entries is not followed: the fix is unsafe.
import os
import random

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Memory:
    def __init__(self):
        self.items = []

    def add(self, mean):
        self.items.append(mean)

    def sample(self, n):
        picked = random.sample(self.items, min(n, len(self.items)))
        return torch.stack(picked).detach()


if __name__ == "__main__":
    torch.manual_seed(0)
    random.seed(0)
    policy = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 2))
    opt = torch.optim.SGD(policy.parameters(), lr=0.05)
    memory = Memory()
    for it in range(ITERS):
        obs = torch.randn(8, 4)
        mean = policy(obs)
        memory.add(mean)
        old = memory.sample(4)
        loss = (policy(obs) - old.mean(0)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"{it} loss {loss.item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in policy.parameters()):.6f}")
