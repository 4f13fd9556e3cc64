# expect-before: runs
# The policy lives in another file and its forward returns a Categorical: the
# sampled actions carry no graph, so the rewards summed over all episodes hold none.
import os

import torch

from models import DiscretePolicy, Walker

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def main():
    torch.manual_seed(0)
    policy = DiscretePolicy(3, 2)
    optimizer = torch.optim.Adam(policy.parameters(), lr=0.01)
    env = Walker(4)
    total_reward = 0
    for episode in range(ITERS):
        state = torch.zeros(4, 3)
        log_probs, rewards = [], []
        for t in range(5):
            dist = policy(state)
            action = dist.sample()
            log_probs.append(dist.log_prob(action))
            state, reward = env.step(state, action)
            rewards.append(reward)
        total_reward = total_reward + torch.stack(rewards).sum()
        returns = torch.stack(rewards).flip(0).cumsum(0).flip(0)
        loss = -(torch.stack(log_probs) * (returns - returns.mean())).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"{episode} {loss.item():.6f} {float(total_reward):.6f}")
    print(f"checksum {sum(p.sum().item() for p in policy.parameters()):.6f}")


if __name__ == "__main__":
    main()
