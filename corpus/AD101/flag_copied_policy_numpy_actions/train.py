# expect-before: runs
# A portfolio agent (its policies in the package `agents`, its memory from a
# library) tests online on a deep copy of a policy: its own, or one the caller
# hands in. Each action is kept in a memory and read back as the next input.
# The policies here return `mu(...).detach().numpy()`, so nothing kept carries
# a graph; for a policy a caller hands in, nothing in the code tells its class,
# so that its forward returns a tensor with a graph is only inferred, and a
# `.detach()` of the stored array would raise. Reported with an unsafe fix,
# the inference named.
import copy
import os
import sys

import numpy as np
import torch

from agents.policies import Policy, add_noise

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "site"))
from ringmemory import Memory  # noqa: E402

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class PolicyGradient:
    def __init__(self, policy=Policy, lr=0.05, n_assets=3):
        self.policy = policy()
        self.lr = lr
        self.n_assets = n_assets

    def _setup_test(self, policy):
        policy = self.policy if policy is None else policy
        self.test_policy = copy.deepcopy(policy).to("cpu")
        self.test_optimizer = torch.optim.SGD(self.test_policy.parameters(), lr=self.lr)
        self.test_memory = Memory(8, self.n_assets)
        self.batch = []

    def test(self, observations, policy=None):
        """Online learning on a copy of the trained policy, or of the one given."""
        self._setup_test(policy)
        for obs in observations:
            last = self.test_memory.retrieve()
            action = add_noise(self.test_policy(obs, last), 0.01)
            self.test_memory.add(action)
            self.batch.append((obs, last))
            if len(self.batch) == 2:
                self._ascent()

    def _ascent(self):
        obs = torch.as_tensor(np.stack([o for o, _ in self.batch]), dtype=torch.float32)
        last = torch.as_tensor(np.stack([a for _, a in self.batch]), dtype=torch.float32)
        loss = -torch.log(self.test_policy.mu(obs, last)[:, 0]).mean()
        self.test_optimizer.zero_grad()
        loss.backward()
        self.test_optimizer.step()
        self.batch = []


if __name__ == "__main__":
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    agent = PolicyGradient()
    for epoch in range(ITERS):
        agent.test([rng.standard_normal(4).astype(np.float32) for _ in range(ITERS)], policy=Policy())
        print(f"epoch {epoch} last {agent.test_memory.items[0][0]:.6f}")
    print(f"checksum {sum(p.sum().item() for p in agent.test_policy.parameters()):.6f}")
