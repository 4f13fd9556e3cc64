# expect-before: runs
# As handed_agent_losses (a Trainer handed its agent keeps every update's
# losses in per-epoch lists), but the agent's fit_batch (agents.py) returns
# the losses' values (`loss.item()`): the lists hold numbers.
import os

import torch

from agents import DDPG

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Trainer:
    def __init__(self, agent, epochs, steps):
        self.agent = agent
        self.epochs = epochs
        self.steps = steps

    def train(self):
        for epoch in range(self.epochs):
            epoch_critic_losses = []
            epoch_actor_losses = []
            for step in range(self.steps):
                states, actions, targets = torch.randn(8, 4), torch.randn(8, 2), torch.randn(8, 1)
                critic_loss, actor_loss = self.agent.fit_batch(states, actions, targets)
                epoch_critic_losses.append(critic_loss)
                epoch_actor_losses.append(actor_loss)
            critic = sum(float(loss) for loss in epoch_critic_losses) / len(epoch_critic_losses)
            actor = sum(float(loss) for loss in epoch_actor_losses) / len(epoch_actor_losses)
            print(f"epoch {epoch} critic {critic:.6f} actor {actor:.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    agent = DDPG()
    Trainer(agent, 2, ITERS).train()
    nets = [agent.actor, agent.critic]
    print(f"checksum {sum(p.sum().item() for net in nets for p in net.parameters()):.6f}")
