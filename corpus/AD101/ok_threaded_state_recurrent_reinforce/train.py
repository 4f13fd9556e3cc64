# expect-before: runs
# A recurrent REINFORCE loop: `policy.act(obs, h)` returns the log-probability
# of the sampled action with its graph and the new state. The episode's
# log-probabilities are summed into a loss and backwarded at the episode's
# end, through the chain of states: the chain is the graph the backward
# needs (backpropagation through the episode), and the state starts again
# from zeros each episode. Nothing to report.
import os

import torch

from policy import RecurrentPolicy

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

policy = RecurrentPolicy()
opt = torch.optim.SGD(policy.parameters(), lr=0.05)
for episode in range(ITERS):
    h = torch.zeros(1, 8)
    log_probs, rewards = [], []
    for t in range(ITERS + 1):
        lp, h = policy.act(torch.randn(3), h)
        log_probs.append(lp)
        rewards.append(float(t % 2))
    loss = -(torch.stack(log_probs).squeeze() * torch.tensor(rewards)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{episode} loss {loss.item():.6f}")
