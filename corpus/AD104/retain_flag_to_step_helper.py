# expect-before: runs
# A trainer whose step helper takes the retain flag from its callers and
# hands it to its backward (`def update(self, loss, retain_graph=False)`).
# The value step passes `retain_graph=True`, but the value loss comes from
# its own forward on this batch and no later backward walks it: the policy
# loss is built on `value.detach()`. The retained graph only stays in memory
# until the next batch; dropping the keyword (the default retains nothing)
# changes nothing else the helper does.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class ActorCritic:
    def __init__(self, policy, value, lr=1e-2):
        self.policy, self.value = policy, value
        self.policy_opt = torch.optim.Adam(policy.parameters(), lr=lr)
        self.value_opt = torch.optim.Adam(value.parameters(), lr=lr)

    def update(self, optimizer, loss, retain_graph=False):
        optimizer.zero_grad()
        loss.backward(retain_graph=retain_graph)
        optimizer.step()

    def train(self, batches):
        for step, (obs, returns) in enumerate(batches):
            value = self.value(obs).squeeze(1)
            value_loss = (returns - value).pow(2).mean()
            self.update(self.value_opt, value_loss, retain_graph=True)
            advantage = returns - value.detach()
            logp = torch.log_softmax(self.policy(obs), dim=1)[:, 0]
            policy_loss = -(logp * advantage).mean()
            self.update(self.policy_opt, policy_loss)
            print(step, f"{value_loss.item():.6f}", f"{policy_loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
    value = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
    agent = ActorCritic(policy, value)
    agent.train([(torch.randn(8, 6), torch.randn(8)) for _ in range(ITERS)])
    print(f"checksum {sum(p.sum().item() for p in value.parameters()):.6f}")
