# expect-before: runs
# The same step helper taking the retain flag, on an actor-critic whose heads
# share a trunk: the actor's backward must keep the trunk's graph for the
# critic's backward that follows, so `retain_graph=True` handed to the helper
# is needed. One optimizer steps after both backwards.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class SharedActorCritic:
    def __init__(self, trunk, actor, critic, lr=1e-2):
        self.trunk, self.actor, self.critic = trunk, actor, critic
        params = [*trunk.parameters(), *actor.parameters(), *critic.parameters()]
        self.opt = torch.optim.Adam(params, lr=lr)

    def backward(self, loss, retain_graph=False):
        loss.backward(retain_graph=retain_graph)

    def train(self, batches):
        for step, (obs, returns) in enumerate(batches):
            h = self.trunk(obs)
            value = self.critic(h).squeeze(1)
            logp = torch.log_softmax(self.actor(h), dim=1)[:, 0]
            self.opt.zero_grad()
            self.backward(-(logp * (returns - value.detach())).mean(), retain_graph=True)
            self.backward((returns - value).pow(2).mean())
            self.opt.step()
            print(step, f"{value.mean().item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    trunk = nn.Sequential(nn.Linear(6, 16), nn.Tanh())
    agent = SharedActorCritic(trunk, nn.Linear(16, 3), nn.Linear(16, 1))
    agent.train([(torch.randn(8, 6), torch.randn(8)) for _ in range(ITERS)])
    print(f"checksum {sum(p.sum().item() for p in trunk.parameters()):.6f}")
