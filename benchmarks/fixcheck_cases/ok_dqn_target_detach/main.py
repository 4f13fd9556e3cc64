# DQN: the TD target comes from a target network and is detached on purpose;
# the target net is synced every few steps. Correct: no finding, no change.
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    q = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 2))
    q_target = copy.deepcopy(q)
    opt = torch.optim.Adam(q.parameters(), lr=1e-3)
    for step in range(8):
        s, a, r, s2 = torch.randn(16, 4), torch.randint(0, 2, (16,)), torch.randn(16), torch.randn(16, 4)
        target = r + 0.99 * q_target(s2).max(1)[0].detach()
        pred = q(s).gather(1, a[:, None]).squeeze(1)
        loss = F.smooth_l1_loss(pred, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 3 == 0:
            q_target.load_state_dict(q.state_dict())
    print(loss.item())


if __name__ == "__main__":
    main()
