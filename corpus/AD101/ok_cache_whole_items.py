# expect-before: runs
# The same policy cache, consumed by whole items: `reinforce` joins only the
# entries it trains on and keeps the rest as they were stored, so nothing
# it keeps hangs from this call's join and each backward frees its graph.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class CachingPolicy:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self._log_probs = []

    def __call__(self, state):
        dist = torch.distributions.Categorical(logits=self.model(state))
        action = dist.sample()
        self.cache(dist.log_prob(action))
        return action

    def cache(self, log_prob):
        self._log_probs.append(log_prob)

    def reinforce(self, errors):
        batch_size = len(errors)
        log_probs = torch.cat(self._log_probs[:batch_size])
        self._log_probs = self._log_probs[batch_size:]
        loss = -torch.dot(log_probs, errors) / batch_size
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Linear(4, 3)  # a linear policy: its backward saves no weight the step changes
    policy = CachingPolicy(model, torch.optim.SGD(model.parameters(), lr=0.05))
    for it in range(ITERS):
        for t in range(3):
            policy(torch.randn(1, 4))
        print(f"{it} loss {policy.reinforce(torch.randn(2)):.6f}")
