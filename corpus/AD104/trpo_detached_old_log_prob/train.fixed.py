# expect-before: runs
# autodetach-test: unsafe
# A TRPO-like update (MushroomRL's shape) on a policy handed in from policy.py: the
# surrogate loss reads the old log-probabilities detached, and the KL term that
# follows runs the policy again on its own forward (the old mean kept with its graph),
# so nothing walks the surrogate's graph after its backward: its retain keeps it for
# nothing. The policy's class is inferred from the call site, so the fix is unsafe.
import os

import torch

from policy import GaussianPolicy

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class TrustRegionAgent:
    def __init__(self, policy, lr=0.05, kl_weight=0.1):
        self.policy = policy
        self.lr = lr
        self.kl_weight = kl_weight

    def _surrogate(self, obs, act, adv, old_log_prob):
        ratio = torch.exp(self.policy.log_prob(obs, act) - old_log_prob)
        return -(ratio * adv).mean()

    def _kl(self, obs, old_mean):
        return ((self.policy(obs) - old_mean) ** 2).sum(-1).mean()

    def fit(self, obs, act, adv):
        old_mean = self.policy(obs)
        old_log_prob = self.policy.log_prob(obs, act).detach()
        for p in self.policy.parameters():
            p.grad = None
        loss = self._surrogate(obs, act, adv, old_log_prob)
        loss.backward()
        g = [p.grad.clone() for p in self.policy.parameters()]
        kl = self._kl(obs, old_mean)
        kl_grads = torch.autograd.grad(kl, list(self.policy.parameters()), allow_unused=True)
        with torch.no_grad():
            for p, gp, kp in zip(self.policy.parameters(), g, kl_grads):
                p -= self.lr * (gp + self.kl_weight * (kp if kp is not None else 0))
        return loss.item()


agent = TrustRegionAgent(GaussianPolicy())
total = 0.0
for step in range(ITERS):
    obs, act, adv = torch.randn(16, 4), torch.randn(16, 2), torch.randn(16)
    total += agent.fit(obs, act, adv)
print(f"loss {total / ITERS:.6f}")
print(f"checksum {sum(p.sum().item() for p in agent.policy.parameters()):.6f}")
