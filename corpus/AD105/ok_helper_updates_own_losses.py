# expect-before: runs
# The same networks, each handed a loss of its own: the actor's policy term
# and the critic's value term are built apart, so each update backwards a
# graph no other update frees.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Network(nn.Module):
    def __init__(self, n_out):
        super().__init__()
        self.net = nn.Linear(4, n_out)
        self.optimizer = torch.optim.SGD(self.parameters(), lr=0.05)

    def update_model(self, loss):
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

    def forward(self, x):
        return self.net(x)


torch.manual_seed(0)
actor, critic = Network(2), Network(1)
for epoch in range(ITERS):
    states = torch.randn(ITERS, 4)
    actor_loss = torch.tensor(0.0)
    critic_loss = torch.tensor(0.0)
    for state in states:
        log_prob = torch.log_softmax(actor(state), dim=-1)[0]
        value = critic(state).squeeze()
        actor_loss = actor_loss - log_prob * (1.0 - value.detach())
        critic_loss = critic_loss + (1.0 - value) ** 2
    actor.update_model(actor_loss)
    critic.update_model(critic_loss)
    print(f"epoch {epoch} loss {actor_loss.item() + critic_loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in [*actor.parameters(), *critic.parameters()]):.6f}")
