# expect-before: runs
# Minibatch epochs over a packed rollout whose features come from the
# policy's learned projection (`pack_rollout()` runs `states @ self.proj`
# once per rollout): every minibatch's loss walks that projection's graph
# again, and the projection steps only after the epochs. The retain is
# needed (without it the second minibatch fails).
import os

import torch
from torch.utils.data import DataLoader

from nets import MLPPolicy

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class PPOTrainer:
    def __init__(self, policy_factory, epochs=2):
        self.policy = policy_factory(4, 3)
        self.epochs = epochs
        self.optimizer = torch.optim.Adam(self.policy.heads(), lr=1e-2)
        self.proj_optimizer = torch.optim.SGD([self.policy.proj], lr=1e-3)

    def update(self, states, actions, returns):
        data = self.policy.pack_rollout(states, actions, returns)
        loader = DataLoader(data, batch_size=8, shuffle=True)
        self.proj_optimizer.zero_grad()
        total = 0.0
        for _ in range(self.epochs):
            for feats, a, ret in loader:
                logits, values = self.policy(feats)
                logp = torch.log_softmax(logits, -1).gather(1, a[:, None]).squeeze(1)
                loss = -(logp * (ret - values.detach())).mean() + 0.5 * (ret - values).pow(2).mean()
                self.optimizer.zero_grad()
                loss.backward(retain_graph=True)
                self.optimizer.step()
                total += loss.item()
        self.proj_optimizer.step()
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
