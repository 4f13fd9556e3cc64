# expect-before: runs
# A policy caches each step's log-probability, and `reinforce` trains on the
# first `len(errors)` of them: it joins the whole cache and stores back the
# rest as a slice of the join. The slice hangs from the `torch.cat` node,
# which holds every entry just joined (the trained ones too); the next call
# joins it again, so each call's graph chains onto the previous ones, and the
# retain keeps all of them alive: memory grows call after call. Detaching the
# slice would cut the gradient the leftover steps still owe the next loss, so
# it is reported without a fix (keep the leftover entries as whole items).
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
        log_probs = torch.cat(self._log_probs)
        batch_size = len(errors)
        self._log_probs = [log_probs[batch_size:]]
        log_probs = log_probs[:batch_size]
        loss = -torch.dot(log_probs, errors) / batch_size
        loss.backward(retain_graph=True)
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
