# expect-before: runs
# A recurrent policy trained with REINFORCE: `step` runs the GRU cell on the
# observation and the state it is handed and returns the action, its log
# probability (with its graph) and the new state, which the episode loop feeds
# back. The log probabilities are kept and backwarded after the episode: the
# chain through the state is the backpropagation through time the author
# wants, and a detach or no_grad there would change the gradients.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Policy(nn.Module):
    def __init__(self, obs_dim=3, hidden=8, n_actions=2):
        super().__init__()
        self.cell = nn.GRUCell(obs_dim, hidden)
        self.logits = nn.Linear(hidden, n_actions)

    def step(self, obs, h):
        h_new = self.cell(obs.view(1, -1), h)
        dist = torch.distributions.Categorical(logits=self.logits(h_new))
        action = dist.sample()
        return action.item(), dist.log_prob(action), h_new


policy = Policy()
opt = torch.optim.Adam(policy.parameters(), lr=0.01)
for episode in range(ITERS):
    h = torch.zeros(1, 8)
    log_probs, rewards = [], []
    obs = torch.randn(3)
    for t in range(5):
        action, log_prob, h = policy.step(obs, h)
        log_probs.append(log_prob)
        rewards.append(1.0 if action == 1 else 0.0)
        obs = torch.randn(3)
    loss = -(torch.stack(log_probs).squeeze() * torch.tensor(rewards)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"{episode} loss {loss.item():.6f}")
