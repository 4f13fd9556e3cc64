# expect-before: runs
# A SAC-style update whose temperature is learned only when `self.autotune` is set.
# The new temperature is stored after the actor's backward, under a test the loop
# never changes: each stored graph is walked by the next actor backward only, and
# the store of the iteration in between always replaces it.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Agent:
    def __init__(self, autotune=True):
        self.actor = nn.Linear(3, 1)
        self.actor_opt = torch.optim.SGD(self.actor.parameters(), lr=0.05)
        self.autotune = autotune
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.alpha_opt = torch.optim.SGD([self.log_alpha], lr=0.05)
        self.alpha = torch.tensor(0.2)

    def update(self, obs, repeats):
        for _ in range(repeats):
            log_pi = self.actor(obs)
            actor_loss = (self.alpha * log_pi - log_pi ** 2).mean()
            self.actor_opt.zero_grad()
            actor_loss.backward()
            self.actor_opt.step()
            if self.autotune:
                alpha_loss = (-self.log_alpha * (log_pi.detach() + 1.0)).mean()
                self.alpha_opt.zero_grad()
                alpha_loss.backward()
                self.alpha_opt.step()
                self.alpha = self.log_alpha.exp()


torch.manual_seed(0)
agent = Agent()
for _ in range(ITERS):
    agent.update(torch.randn(5, 3), repeats=2)
print(f"checksum {agent.actor.weight.sum().item() + agent.log_alpha.item():.6f}")
