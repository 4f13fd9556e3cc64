# expect-before: error Trying to backward through the graph a second time
# The update of an actor-critic pair is a function with no loop around its
# two updates (the caller loops over episodes): one loss summed over the
# episode is handed to the actor's `update_model` and then to the critic's,
# and the second backward walks the graph the first one freed. Both passes'
# gradients are wanted, so the first pass keeps the graph.
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


def update(actor, critic, states):
    loss = torch.tensor(0.0)
    for state in states:
        log_prob = torch.log_softmax(actor(state), dim=-1)[0]
        value = critic(state).squeeze()
        advantage = 1.0 - value.detach()
        loss = loss - log_prob * advantage + (1.0 - value) ** 2
    actor.update_model(loss)
    critic.update_model(loss)
    return loss.item()


torch.manual_seed(0)
actor, critic = Network(2), Network(1)
for epoch in range(ITERS):
    print(f"epoch {epoch} loss {update(actor, critic, torch.randn(ITERS, 4)):.6f}")

print(f"checksum {sum(p.sum().item() for p in [*actor.parameters(), *critic.parameters()]):.6f}")
