# expect-before: runs
# autodetach-test: unsafe
# PPO-style epochs over minibatches: the old policy's logits and values are
# computed once, cut (`.detach()`), and packed into a dataset by the policy's
# `pack_rollout()`; each minibatch runs the policy anew and backwards its own
# loss once. `retain_graph=True` keeps every minibatch's graph for nothing.
# The policy comes from a factory handed in, so its class is not known in this
# file: that `pack_rollout()` runs none of its parameters is inferred from the
# project's methods of that name (nets/base.py's is an abstract stub,
# nets/mlp.py's packs the arrays as they are): unsafe.
import os

import torch
from torch.utils.data import DataLoader

from nets import MLPPolicy

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class PPOTrainer:
    def __init__(self, policy_factory, epochs=2, clip=0.2):
        self.policy = policy_factory(4, 3)
        self.epochs = epochs
        self.clip = clip
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=1e-2)

    def update(self, states, actions, returns):
        logits_old, values_old = self.policy(states)
        logp_old = torch.log_softmax(logits_old, -1).gather(1, actions[:, None]).squeeze(1).detach()
        advantages = (returns - values_old).detach()
        data = self.policy.pack_rollout(states, actions, returns, logp_old, advantages)
        loader = DataLoader(data, batch_size=8, shuffle=True)
        total = 0.0
        for _ in range(self.epochs):
            for s, a, ret, lp_old, adv in loader:
                logits, values = self.policy(s)
                logp = torch.log_softmax(logits, -1).gather(1, a[:, None]).squeeze(1)
                ratio = (logp - lp_old).exp()
                surrogate = torch.min(ratio * adv, ratio.clamp(1 - self.clip, 1 + self.clip) * adv)
                loss = -surrogate.mean() + 0.5 * (ret - values).pow(2).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                total += loss.item()
        return total


def main():
    torch.manual_seed(0)
    trainer = PPOTrainer(MLPPolicy)
    for it in range(ITERS):
        states = torch.randn(32, 4)
        actions = torch.randint(0, 3, (32,))
        returns = torch.randn(32)
        total = trainer.update(states, actions, returns)
        print(f"{it} loss {total:.6f}")
    print(f"checksum {sum(p.sum().item() for p in trainer.policy.parameters()):.6f}")


if __name__ == "__main__":
    main()
