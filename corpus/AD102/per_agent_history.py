# expect-before: runs
# The nearest shape that leaks: the per-agent update of ok_per_agent_losses,
# but the losses go to a history on the trainer that is never emptied, so
# every step's graphs stay alive.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Critic(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x):
        return self.net(x)


class MultiAgentTrainer:
    def __init__(self, n_agents, dim):
        self.n_agents = n_agents
        self.critics = [Critic(dim) for _ in range(n_agents)]
        self.history = []
        self.critic_optimizer = [torch.optim.Adam(c.parameters(), lr=0.01) for c in self.critics]

    def update(self, states, rewards):
        for agent in range(self.n_agents):
            self.critic_optimizer[agent].zero_grad()
            q = self.critics[agent](states)
            loss_q = nn.MSELoss()(q, rewards[:, agent:agent + 1])
            loss_q.backward()
            self.critic_optimizer[agent].step()
            self.history.append(loss_q)
        return self.history[-self.n_agents:]


def main():
    torch.manual_seed(0)
    trainer = MultiAgentTrainer(3, 6)
    for it in range(ITERS):
        c_loss = trainer.update(torch.randn(8, 6), torch.randn(8, 3))
        print(f"{it} critic {sum(l.item() for l in c_loss):.6f}")
    print(f"checksum {sum(p.sum().item() for c in trainer.critics for p in c.parameters()):.6f}")


if __name__ == "__main__":
    main()
