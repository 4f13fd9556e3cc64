# expect-before: runs
# DQN: the bootstrap target comes from a target network that no optimizer
# owns, and is detached on purpose.
import os
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class DQN(nn.Module):
    def __init__(self, n_obs, n_actions):
        super().__init__()
        self.layer1 = nn.Linear(n_obs, 32)
        self.layer2 = nn.Linear(32, n_actions)

    def forward(self, x):
        return self.layer2(F.relu(self.layer1(x)))


def optimize_model(policy_net, target_net, optimizer, batch, gamma=0.99):
    state, action, reward, next_state = batch
    state_action_values = policy_net(state).gather(1, action)
    next_state_values = target_net(next_state).max(1)[0].detach()
    expected = (next_state_values * gamma) + reward
    loss = F.smooth_l1_loss(state_action_values, expected.unsqueeze(1))
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
    optimizer.step()
    return loss.item()


if __name__ == "__main__":
    random.seed(0)
    torch.manual_seed(0)
    policy_net = DQN(4, 2)
    target_net = DQN(4, 2)
    target_net.load_state_dict(policy_net.state_dict())
    optimizer = torch.optim.AdamW(policy_net.parameters(), lr=1e-3, amsgrad=True)
    for it in range(ITERS):
        s = torch.randn(16, 4)
        a = torch.tensor([[random.randrange(2)] for _ in range(16)])
        r = (a.squeeze(1) == (s[:, 0] > 0).long()).float()
        s2 = s + 0.1 * torch.randn(16, 4)
        print(f"{it} loss {optimize_model(policy_net, target_net, optimizer, (s, a, r, s2)):.6f}")
        if it % 2 == 1:
            target_net.load_state_dict(policy_net.state_dict())
    print(f"checksum {sum(p.sum().item() for p in policy_net.parameters()):.6f}")
