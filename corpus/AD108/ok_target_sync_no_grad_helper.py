# expect-before: runs
# A DQN loss helper runs the target network under torch.no_grad(), and the
# target is synced (`load_state_dict`) after the loss is built but before its
# backward: the graph holds none of the target's weights, so the reload
# changes nothing the backward reads.
import copy
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def dqn_loss(batch, net, target_net, gamma=0.9):
    states, actions, rewards, next_states = batch
    values = net(states).gather(1, actions.unsqueeze(-1)).squeeze(-1)
    with torch.no_grad():
        next_values = target_net(next_states).max(1)[0]
    return nn.functional.mse_loss(values, rewards + gamma * next_values)


net = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
target_net = copy.deepcopy(net)
optimizer = torch.optim.SGD(net.parameters(), lr=0.05)

for step in range(ITERS * 2):
    batch = (torch.randn(8, 4), torch.randint(0, 2, (8,)), torch.randn(8), torch.randn(8, 4))
    loss = dqn_loss(batch, net, target_net)
    if step % 2 == 0:
        target_net.load_state_dict(net.state_dict())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"{step} loss {loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
