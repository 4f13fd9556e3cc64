# expect-before: runs
# REINFORCE: log-probabilities are buffered during an episode, consumed by one
# backward at its end, and the buffer is cleared before the next episode.
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 32)
        self.affine2 = nn.Linear(32, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.affine1(x))
        return F.softmax(self.affine2(x), dim=1)


policy = Policy()
optimizer = optim.Adam(policy.parameters(), lr=1e-2)
gamma = 0.99


def select_action(state):
    probs = policy(state.unsqueeze(0))
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode():
    R = 0.0
    returns = []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + 1e-6)
    policy_loss = []
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    loss = torch.cat(policy_loss).sum()
    loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
    return loss.item()


def main():
    torch.manual_seed(0)
    for episode in range(ITERS):
        state = torch.randn(4)
        for t in range(6):
            action = select_action(state)
            state = state + 0.1 * (action - 0.5) + 0.05 * torch.randn(4)
            policy.rewards.append(float(state.sum() > 0))
        print(f"{episode} loss {finish_episode():.6f}")
    print(f"checksum {sum(p.sum().item() for p in policy.parameters()):.6f}")


if __name__ == "__main__":
    main()
