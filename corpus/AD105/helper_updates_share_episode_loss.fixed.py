# expect-before: error Trying to backward through the graph a second time
# Each network owns its optimizer and an `update_model` that backwards what it
# is given and steps. One loss, summed over an episode's steps, is handed to
# the actor's update and then to the critic's: the second backward walks the
# graph the first one freed. Both passes' gradients are wanted (each network
# learns from its own part), so the first pass keeps the graph.
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
        loss.backward(retain_graph=True)
        self.optimizer.step()

    def forward(self, x):
        return self.net(x)


torch.manual_seed(0)
actor, critic = Network(2), Network(1)
for epoch in range(ITERS):
    states = torch.randn(ITERS, 4)
    loss = torch.tensor(0.0)
    for state in states:
        log_prob = torch.log_softmax(actor(state), dim=-1)[0]
        value = critic(state).squeeze()
        advantage = 1.0 - value.detach()
        loss = loss - log_prob * advantage + (1.0 - value) ** 2
    actor.update_model(loss)
    critic.update_model(loss)
    print(f"epoch {epoch} loss {loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in [*actor.parameters(), *critic.parameters()]):.6f}")
