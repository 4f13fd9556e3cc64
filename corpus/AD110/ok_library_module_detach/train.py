# expect-before: runs
# The memory module comes from another file (a library class the analysis may
# not read) and is handed to the training function; `memory.detach()` there is
# still the module's own method (nn.Module has no detach()), which cuts its
# state in place, not a discarded Tensor.detach().
import os

import torch
import torch.nn as nn

from memory import NodeMemory

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def train_epoch(memory, head, optimizer):
    memory.train()
    total = 0.0
    for it in range(ITERS):
        ids = torch.arange(it % 3, it % 3 + 4)
        optimizer.zero_grad()
        loss = head(memory(ids)).pow(2).mean()
        memory.update_state(ids, torch.randn(4, 4))
        loss.backward()
        optimizer.step()
        memory.detach()
        total += loss.item()
    return total


memory = NodeMemory(10, 4).to("cpu")
head = nn.Linear(4, 1)
optimizer = torch.optim.SGD(list(memory.parameters()) + list(head.parameters()), lr=0.1)
print(f"{train_epoch(memory, head, optimizer):.6f}")
print(f"{sum(p.sum().item() for p in head.parameters()):.6f}")
