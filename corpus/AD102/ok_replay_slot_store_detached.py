# expect-before: runs
# The ring memory done right: `push` stores a detached copy of what it is
# given, so the probabilities kept for the report hold no graph, whatever
# the agent hands it.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class RingMemory:
    def __init__(self, capacity):
        self.capacity = capacity
        self.slots = []
        self.position = 0

    def push(self, value):
        if len(self.slots) < self.capacity:
            self.slots.append(None)
        self.slots[self.position] = value.detach()
        self.position = (self.position + 1) % self.capacity

    def mean(self):
        return sum(float(v.detach().mean()) for v in self.slots) / max(len(self.slots), 1)


class Agent:
    def __init__(self, policy, optimizer):
        self.policy = policy
        self.optimizer = optimizer
        self.memory = RingMemory(capacity=64)

    def learn(self, states, actions, advantages):
        logits = self.policy(states)
        loss = (nn.functional.cross_entropy(logits, actions, reduction="none") * advantages).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.memory.push(logits.softmax(dim=1))
        return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(6, 32), nn.Tanh(), nn.Linear(32, 3))
    agent = Agent(policy, torch.optim.SGD(policy.parameters(), lr=0.05))
    for it in range(ITERS):
        states, actions, advantages = torch.randn(16, 6), torch.randint(0, 3, (16,)), torch.randn(16)
        print(f"{it} loss {agent.learn(states, actions, advantages):.6f}")
    print(f"mean probability {agent.memory.mean():.6f}")
