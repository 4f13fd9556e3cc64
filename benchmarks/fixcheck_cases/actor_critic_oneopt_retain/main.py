# Actor-critic with ONE optimizer over both networks and two backwards before
# the step. The critic's value is reused in the actor loss without detach, so
# the critic also receives the actor loss's gradients, and the optimizer steps
# them. Correct (same numbers as the program meant with retain_graph=True):
# retain_graph=True on the actor backward (AD105). advantage.detach() would be
# what an RL text recommends, but it changes the critic's updates: not a safe
# fix.
import itertools

import torch

from agent import Actor, Critic


def main():
    torch.manual_seed(0)
    actor, critic = Actor(), Critic()
    opt = torch.optim.Adam(itertools.chain(actor.parameters(), critic.parameters()), lr=1e-3)
    for step in range(6):
        states = torch.randn(16, 6)
        returns = torch.randn(16)
        dist = actor(states)
        actions = dist.sample()
        values = critic(states)
        advantage = returns - values
        actor_loss = -(dist.log_prob(actions) * advantage).mean()
        critic_loss = 0.5 * advantage.pow(2).mean()
        opt.zero_grad()
        actor_loss.backward()
        critic_loss.backward()
        opt.step()
    print(actor_loss.item(), critic_loss.item())


if __name__ == "__main__":
    main()
