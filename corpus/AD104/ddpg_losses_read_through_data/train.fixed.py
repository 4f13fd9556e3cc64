# expect-before: runs
# autodetach-test: unsafe
# A DDPG agent (its loop in loop.py) backwards the critic loss and then the actor loss,
# each with retain_graph=True, and returns both losses; the actor step builds
# a new graph (the critic sees `state.detach()` and a new action) and the
# target comes from torch.no_grad(), so neither retained graph is walked
# again. The training loop reads the returned losses only through `.data` (for
# the logged totals): the retains keep both graphs alive for nothing. That
# code out of sight does not backward the returned losses is inferred, so the
# fixes are unsafe.
import os

import torch
from torch import nn

torch.manual_seed(0)
ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class DDPG(object):
    def __init__(self, obs_dim=4, act_dim=2, discount=0.9):
        self.actor = nn.Sequential(nn.Linear(obs_dim, 16), nn.Tanh(), nn.Linear(16, act_dim), nn.Tanh())
        self.critic = nn.Sequential(nn.Linear(obs_dim + act_dim, 16), nn.Tanh(), nn.Linear(16, 1))
        self.actor_optim = torch.optim.Adam(self.actor.parameters(), lr=1e-3)
        self.critic_optim = torch.optim.Adam(self.critic.parameters(), lr=1e-3)
        self.discount = discount

    def evaluate(self, state, action):
        return self.critic(torch.cat([state, action], 1))

    def update_policy(self, state, action, reward, next_state):
        with torch.no_grad():
            target_q = reward + self.discount * self.evaluate(next_state, self.actor(next_state))
        cur_q = self.evaluate(state, action)
        value_loss = nn.functional.mse_loss(cur_q, target_q)
        self.critic.zero_grad()
        value_loss.backward()
        self.critic_optim.step()

        pre_q = self.evaluate(state.detach(), self.actor(state))
        policy_loss = -pre_q.mean()
        self.actor.zero_grad()
        policy_loss.backward()
        self.actor_optim.step()
        return -policy_loss, value_loss


if __name__ == "__main__":
    from loop import run

    agent = run(DDPG(), ITERS)
    print(f"checksum {sum(p.sum().item() for p in agent.actor.parameters()):.6f}")
