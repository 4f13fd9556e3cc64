# expect-before: error modified by an inplace operation
# An ensemble of Q networks kept in a list, one optimizer per network kept in
# another list (REDQ-style SAC). The policy loss runs through every Q network
# before the Q optimizers step, and is backwarded after: its graph saved the
# Q weights that the steps changed in place.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
N_Q = 2


class Agent:
    def __init__(self):
        self.policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
        self.q_nets = []
        for _ in range(N_Q):
            self.q_nets.append(nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 1)))
        self.policy_opt = torch.optim.Adam(self.policy.parameters(), lr=1e-3)
        self.q_opts = []
        for i in range(N_Q):
            self.q_opts.append(torch.optim.Adam(self.q_nets[i].parameters(), lr=1e-3))

    def update(self, obs, act, target):
        preds = []
        for i in range(N_Q):
            preds.append(self.q_nets[i](torch.cat([obs, act], 1)))
        q_loss = ((torch.cat(preds, 1) - target) ** 2).mean()
        new_act = self.policy(obs)
        qs = []
        for i in range(N_Q):
            qs.append(self.q_nets[i](torch.cat([obs, new_act], 1)))
        policy_loss = -torch.cat(qs, 1).mean()
        for i in range(N_Q):
            self.q_opts[i].zero_grad()
        q_loss.backward()
        for i in range(N_Q):
            self.q_opts[i].step()
        self.policy_opt.zero_grad()
        policy_loss.backward()
        self.policy_opt.step()
        print(f"q loss {q_loss.item():.6f} policy loss {policy_loss.item():.6f}")


torch.manual_seed(0)
agent = Agent()
for it in range(ITERS):
    agent.update(torch.randn(8, 4), torch.randn(8, 2), torch.randn(8, 1))
print(f"checksum {sum(p.sum().item() for p in agent.policy.parameters()):.6f}")
