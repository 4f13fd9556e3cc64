# expect-before: runs
# A quantile-regression DQN: a helper returns the quantile levels, sorted through `.data`
# from the online network's estimate, and the target quantiles from the target network.
# The statement that unpacks them shows one call, so the analysis sees both results hang
# from the target network and from the cut estimate; but the loss reaches the online
# network uncut through `u = expected - dist`: nothing is starved.
import os

import torch
import torch.nn as nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
QUANTS = 6

online = nn.Linear(4, 2 * QUANTS)
target = nn.Linear(4, 2 * QUANTS)
target.load_state_dict(online.state_dict())
optimizer = torch.optim.Adam(online.parameters(), lr=1e-2)


def quantile_targets(dist, next_state, reward):
    best = target(next_state).view(-1, 2, QUANTS).mean(2).max(1)[1]
    chosen = target(next_state).view(-1, 2, QUANTS)[torch.arange(len(best)), best]
    expected = reward.unsqueeze(1) + 0.9 * chosen.data
    order = torch.sort(dist, 1)[1].cpu().data
    levels = (torch.arange(QUANTS).float() + 0.5) / QUANTS
    tau = levels[order]
    return tau, expected


def td_step(state, action, reward, next_state):
    dist = online(state).view(-1, 2, QUANTS)
    dist = dist[torch.arange(len(action)), action]
    tau, expected = quantile_targets(dist, next_state, reward)
    u = expected - dist
    huber = 0.5 * u.abs().clamp(max=1.0).pow(2)
    huber = huber + (u.abs() - u.abs().clamp(max=1.0))
    loss = ((tau - (u < 0).float()).abs() * huber).sum() / QUANTS
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


total = 0.0
for step in range(ITERS):
    total += td_step(torch.randn(8, 4), torch.randint(0, 2, (8,)), torch.randn(8), torch.randn(8, 4))
print(f"loss {total / ITERS:.6f}")
print(f"checksum {sum(p.sum().item() for p in online.parameters()):.6f}")
