# expect-before: runs
# `memory.detach()` as a statement is not Tensor.detach: `memory` is a module
# (nn.Module has no detach()), and its class's own detach() cuts its state in
# place (PyG's TGNMemory: `self.memory.detach_()`), so the next batch does not
# walk the last batch's graph.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Memory(nn.Module):
    def __init__(self, nodes, dim):
        super().__init__()
        self.cell = nn.GRUCell(dim, dim)
        self.register_buffer("state", torch.zeros(nodes, dim))

    def forward(self, ids):
        return self.state[ids]

    def update_state(self, ids, msg):
        self.state[ids] = self.cell(msg, self.state[ids])

    def detach(self):
        self.state.detach_()


memory = Memory(10, 4).to("cpu")
head = nn.Linear(4, 1)
optimizer = torch.optim.Adam(set(memory.parameters()) | set(head.parameters()), lr=0.01)


def train():
    total = 0.0
    for it in range(ITERS):
        ids = torch.arange(it % 3, it % 3 + 4)
        optimizer.zero_grad()
        z = memory(ids)
        loss = head(z).pow(2).mean()
        memory.update_state(ids, torch.randn(4, 4))
        loss.backward()
        optimizer.step()
        memory.detach()
        total += loss.item()
    return total


print(f"{train():.6f}")
print(f"{sum(p.sum().item() for p in head.parameters()):.6f}")
