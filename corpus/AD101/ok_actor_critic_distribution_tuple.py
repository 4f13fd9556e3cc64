# expect-before: runs
# An actor-critic whose forward returns (Categorical, value): the sampled actions
# carry no graph, so the states they move and the reward total kept over all
# episodes hold none either.
import os

import torch
import torch.nn as nn
from torch.distributions import Categorical

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class ActorCritic(nn.Module):
    def __init__(self, n_state, n_action):
        super().__init__()
        self.pi = nn.Linear(n_state, n_action)
        self.v = nn.Linear(n_state, 1)

    def forward(self, state):
        return Categorical(logits=self.pi(state)), self.v(state)


def main():
    torch.manual_seed(0)
    model = ActorCritic(3, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    total_reward = 0
    for episode in range(ITERS):
        state = torch.zeros(4, 3)
        log_probs, values, rewards = [], [], []
        for t in range(5):
            dist, value = model(state)
            action = dist.sample()
            log_probs.append(dist.log_prob(action))
            values.append(value.squeeze(-1))
            state = state + 0.5 * action.float().unsqueeze(1) - 0.25
            rewards.append(state[:, 0])
        total_reward = total_reward + torch.stack(rewards).sum()
        advantage = torch.stack(rewards) - torch.stack(values)
        loss = -(torch.stack(log_probs) * advantage.detach()).mean() + advantage.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"{episode} {loss.item():.6f} {float(total_reward):.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")


if __name__ == "__main__":
    main()
