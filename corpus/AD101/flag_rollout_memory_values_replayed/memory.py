import torch


class RolloutMemory:
    """A fixed-size rollout memory: `add` copies each step into preallocated tensors."""

    def __init__(self, size, dim):
        self.states = torch.zeros(size, dim)
        self.rewards = torch.zeros(size)
        self.values = torch.zeros(size)
        self.returns = torch.zeros(size)
        self.size = size
        self.index = 0

    def add(self, states, rewards, values):
        self.states[self.index].copy_(states)
        self.rewards[self.index] = rewards
        self.values[self.index].copy_(values.squeeze())
        self.index = (self.index + 1) % self.size

    def finish(self, gamma=0.9):
        running = self.values[-1]
        for t in reversed(range(self.size)):
            running = self.rewards[t] + gamma * running
            self.returns[t] = running

    def draw(self):
        return self.states, self.values, self.returns
