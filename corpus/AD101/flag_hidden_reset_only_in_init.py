# expect-before: error Trying to backward through the graph a second time
# The same learner, but `init_hidden` runs only once, in `__init__`: each
# `learn` starts from the state the previous call left, whose graph that
# call's backward freed. Reported without a fix: detaching where the outputs
# are stored would cut this call's own loss (`self.init_hidden(n)` in `learn`
# is what was meant).
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class QLearner:
    def __init__(self, obs_dim=4, hidden=8, n_actions=3):
        self.hidden_dim = hidden
        self.rnn = nn.GRUCell(obs_dim, hidden)
        self.q = nn.Linear(hidden, n_actions)
        self.optimizer = torch.optim.RMSprop(list(self.rnn.parameters()) + list(self.q.parameters()), lr=1e-3)
        self.init_hidden(2)

    def init_hidden(self, episodes):
        self.eval_hidden = torch.zeros(episodes, self.hidden_dim)

    def get_q_values(self, obs):
        q_evals = []
        for t in range(obs.shape[1]):
            self.eval_hidden = self.rnn(obs[:, t], self.eval_hidden)
            q_evals.append(self.q(self.eval_hidden))
        return torch.stack(q_evals, dim=1)

    def learn(self, obs, actions, targets):
        q = self.get_q_values(obs).gather(2, actions.unsqueeze(2)).squeeze(2)
        loss = (q - targets).pow(2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


learner = QLearner()
for step in range(ITERS):
    obs = torch.randn(2, 5, 4)
    acts = torch.randint(0, 3, (2, 5))
    print(f"{step} loss {learner.learn(obs, acts, torch.randn(2, 5)):.6f}")
print(f"checksum {sum(p.sum().item() for p in learner.rnn.parameters()):.6f}")
