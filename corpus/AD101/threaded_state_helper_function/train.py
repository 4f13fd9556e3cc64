# expect-before: runs
# autodetach-test: unsafe
# A collecting method hands the network to a helper of this file, `choose`,
# which calls `net.step(obs, state)`: `RecurrentQ.step` (nets.py) runs the
# LSTM on the state with gradients on and returns a number and the new
# state. The collecting loop feeds the state back, the learner refits on
# stored observations from a zero state, so nothing backwards the chain and
# every step's graph of a rollout stays alive. What `choose` hands back is
# inferred from nets.py (`net` is taken to be a `RecurrentQ`, the project
# class that defines `step`), so the fix (the step under no_grad) is unsafe.
import os
import random

import torch

from nets import RecurrentQ, fit

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
random.seed(0)


def choose(net, obs, state, eps):
    action, state = net.step(obs, state)
    if random.random() < eps:
        return random.randrange(3), state
    return action, state


class Collector:
    def __init__(self):
        self.net = RecurrentQ()
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.05)

    def rollout(self, steps):
        seen, rewards = [], []
        obs, state = torch.randn(4), None
        for t in range(steps):
            action, state = choose(self.net, obs, state, 0.1)
            seen.append(obs)
            rewards.append(float(action == 1))
            obs = torch.randn(4)
        return torch.stack(seen).unsqueeze(0), torch.tensor(rewards).unsqueeze(0)

    def run(self):
        for episode in range(ITERS):
            seqs, targets = self.rollout(ITERS + 2)
            print(f"{episode} loss {fit(self.net, self.opt, seqs, targets):.6f}")


Collector().run()
