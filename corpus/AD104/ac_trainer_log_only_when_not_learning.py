# expect-before: runs
# An actor-critic trainer class: `update` trains the critic on its own forward,
# then builds the actor's loss from a fresh forward of both networks. When it
# is only evaluating (`learn` false) it keeps the proposed actions in the
# caller's `log` dict; when it learns it backwards the actor loss with
# retain_graph=True and steps. The store into the caller's dict (`if not
# learn:`) and the backward (`if learn and ...`) never run in the same call,
# so the dict never holds this graph and nothing backwards it again: the
# retain is unneeded (the script's batches are new tensors each step).
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class ActorCriticTrainer:
    def __init__(self):
        self.actor = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2))
        self.critic = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1))
        self.actor_opt = torch.optim.SGD(self.actor.parameters(), lr=0.05)
        self.critic_opt = torch.optim.SGD(self.critic.parameters(), lr=0.05)

    def update(self, batch, log, learn=True, every=1, step=0):
        state, action, reward = batch
        value = self.critic(torch.cat([state, action], 1))
        critic_loss = (value - reward).pow(2).mean()
        if learn:
            self.critic_opt.zero_grad()
            critic_loss.backward()
            self.critic_opt.step()
        proposed = self.actor(state)
        actor_loss = -self.critic(torch.cat([state, proposed], 1)).mean()
        if not learn:
            log["proposed"] = proposed
        if learn and step % every == 0:
            self.actor_opt.zero_grad()
            actor_loss.backward(retain_graph=True)
            self.actor_opt.step()
        return actor_loss.item(), critic_loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = ActorCriticTrainer()
    log = {}
    for step in range(ITERS):
        batch = (torch.randn(4, 3), torch.randn(4, 2), torch.randn(4, 1))
        a, c = trainer.update(batch, log, learn=True, step=step)
        trainer.update(batch, log, learn=False, step=step)
        print(step, f"{a:.6f} {c:.6f} {log['proposed'].sum().item():.6f}")
