# expect-before: error modified by an inplace operation
# autodetach-test: unsafe
# A soft actor-critic style trainer that receives the optimizer class as an
# argument: the policy loss goes through the Q-network, and the Q-network's
# optimizer steps before the policy backward.
import os

import torch
from torch import nn, optim
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class QNet(nn.Module):
    def __init__(self, s_dim, a_dim):
        super().__init__()
        self.fc1 = nn.Linear(s_dim + a_dim, 32)
        self.fc2 = nn.Linear(32, 1)

    def forward(self, s, a):
        return self.fc2(F.relu(self.fc1(torch.cat([s, a], dim=1))))


class Trainer:
    def __init__(self, policy, qf, optimizer_class=optim.Adam, lr=1e-3):
        self.policy = policy
        self.qf = qf
        self.policy_optimizer = optimizer_class(self.policy.parameters(), lr=lr)
        self.qf_optimizer = optimizer_class(self.qf.parameters(), lr=lr)

    def train_step(self, obs, actions, target):
        q_pred = self.qf(obs, actions)
        qf_loss = F.mse_loss(q_pred, target)
        self.qf_optimizer.zero_grad()
        qf_loss.backward()
        self.qf_optimizer.step()
        self.policy_optimizer.zero_grad()
        policy_loss = -self.qf(obs, self.policy(obs)).mean()
        policy_loss.backward()
        self.policy_optimizer.step()
        return qf_loss.item(), policy_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(3, 32), nn.ReLU(), nn.Linear(32, 1), nn.Tanh())
    trainer = Trainer(policy, QNet(3, 1))
    for it in range(ITERS):
        obs = torch.randn(16, 3)
        actions = torch.rand(16, 1) * 2 - 1
        target = -(obs[:, :1] - actions).pow(2)
        q_loss, p_loss = trainer.train_step(obs, actions, target)
        print(f"{it} q {q_loss:.6f} policy {p_loss:.6f}")
    print(f"checksum {sum(p.sum().item() for p in policy.parameters()):.6f}")
