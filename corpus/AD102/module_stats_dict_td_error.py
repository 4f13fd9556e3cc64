# expect-before: runs
# autodetach-test: unsafe
# A module-level dict of lists collects statistics for a pickle: the TD error
# (target minus the Q network's output, whose backward is taken with an explicit
# gradient) is kept with its graph at every update.
# The dict is module-level: that nothing else reads its lists as tensors with a
# graph is inferred, so `.detach()` is offered as an unsafe fix.
import os
import pickle

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

Statistic = {"td_errors": [], "mean_rewards": []}

q_net = nn.Sequential(nn.Linear(4, 24), nn.ReLU(), nn.Linear(24, 2))
optimizer = torch.optim.RMSprop(q_net.parameters(), lr=1e-3)


def learn(steps, gamma=0.9):
    for t in range(steps):
        obs = torch.randn(16, 4)
        act = torch.randint(0, 2, (16, 1))
        rew = torch.randn(16, 1)
        current_q = q_net(obs).gather(1, act)
        with torch.no_grad():
            next_q = q_net(torch.randn(16, 4)).max(1, keepdim=True)[0]
        td_error = rew + gamma * next_q - current_q
        optimizer.zero_grad()
        current_q.backward(-td_error.clamp(-1, 1).data)
        optimizer.step()
        Statistic["td_errors"].append(td_error)
        Statistic["mean_rewards"].append(rew.mean().item())


learn(ITERS)
blob = pickle.dumps(Statistic["mean_rewards"])
print("td", " ".join(f"{e.abs().mean().item():.6f}" for e in Statistic["td_errors"]), len(blob) > 0)
print(f"checksum {sum(p.sum().item() for p in q_net.parameters()):.6f}")
