# expect-before: runs
# The PPO-style recipe of flag_step_stats_lists, with `_ppo_step` returning its
# statistics detached: the sums over backward batches and the lists per
# statistic hold plain values, so nothing is kept from one mini-batch to the
# next and nothing is reported.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def ppo_loss(logp, old_logp, adv, values, returns):
    ratio = (logp - old_logp).exp()
    policy_loss = -(ratio * adv).mean()
    value_loss = (values - returns).pow(2).mean()
    return policy_loss + 0.5 * value_loss, policy_loss, value_loss


class Recipe:
    def __init__(self):
        self.policy = nn.Linear(6, 1)
        self.value = nn.Linear(6, 1)
        params = list(self.policy.parameters()) + list(self.value.parameters())
        self.optimizer = torch.optim.SGD(params, lr=0.05)
        self.accum = 2

    def _ppo_step(self, obs, old_logp, adv, returns):
        logp = self.policy(obs).squeeze(-1)
        values = self.value(obs).squeeze(-1)
        loss, policy_loss, value_loss = ppo_loss(logp, old_logp, adv, values, returns)
        loss /= self.accum
        loss.backward()
        return loss.detach(), (policy_loss / self.accum).detach(), (value_loss / self.accum).detach()

    def train(self, batches):
        for obs, old_logp, adv, returns in batches:
            ppo_stats = [[]] * 3
            for _ in range(2):
                batch_stats = [0] * 3
                for j in range(self.accum):
                    step_stats = self._ppo_step(obs[j::2], old_logp[j::2], adv[j::2], returns[j::2])
                    batch_stats = [stat + bstat for stat, bstat in zip(batch_stats, step_stats)]
                ppo_stats = [ppo_stat + [bstat] for ppo_stat, bstat in zip(ppo_stats, batch_stats)]
                self.optimizer.step()
                self.optimizer.zero_grad()
            self.log(*map(torch.tensor, ppo_stats))

    def log(self, loss, policy_loss, value_loss):
        print(f"loss {loss.mean().item():.6f} policy {policy_loss.mean().item():.6f} "
              f"value {value_loss.mean().item():.6f}")


recipe = Recipe()
batches = [(torch.randn(8, 6), torch.randn(8), torch.randn(8), torch.randn(8)) for _ in range(ITERS)]
recipe.train(batches)
print(f"checksum {sum(p.sum().item() for p in recipe.policy.parameters()):.6f} over {ITERS} batches")
