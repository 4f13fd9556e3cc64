# expect-before: runs
# A module-level dict of lists that a helper function starts again after each
# update is logged: the list holds one update's error at a time.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

STATS = {"td_errors": []}

q_net = nn.Sequential(nn.Linear(4, 24), nn.ReLU(), nn.Linear(24, 2))
optimizer = torch.optim.RMSprop(q_net.parameters(), lr=1e-3)


def report(t):
    print(t, " ".join(f"{e.abs().mean().item():.6f}" for e in STATS["td_errors"]))
    STATS["td_errors"] = []


def learn(steps, gamma=0.9):
    for t in range(steps):
        obs = torch.randn(16, 4)
        act = torch.randint(0, 2, (16, 1))
        current_q = q_net(obs).gather(1, act)
        with torch.no_grad():
            target = torch.randn(16, 1) + gamma * q_net(torch.randn(16, 4)).max(1, keepdim=True)[0]
        td_error = target - current_q
        optimizer.zero_grad()
        current_q.backward(-td_error.clamp(-1, 1).data)
        optimizer.step()
        STATS["td_errors"].append(td_error)
        report(t)


learn(ITERS)
print(f"checksum {sum(p.sum().item() for p in q_net.parameters()):.6f}")
