# expect-before: error Trying to backward through the graph a second time
# The same update, but the memory is taken from the stored experience only for
# the first batch (`if self.model.recurrent and start == 0:`, another test
# than the one guarding its use): later batches start from the memory the
# previous batch left, whose graph its backward freed. Reported without a
# fix: detaching the summed loss would cut this batch's own loss.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class ACModel(nn.Module):
    def __init__(self, recurrent=True):
        super().__init__()
        self.recurrent = recurrent
        self.cell = nn.GRUCell(4, 4)
        self.head = nn.Linear(4, 1)

    def forward(self, obs, memory=None):
        if memory is None:
            return self.head(obs), None
        memory = self.cell(obs, memory)
        return self.head(memory), memory


class PPO:
    def __init__(self, model, recurrence=3):
        self.model = model
        self.recurrence = recurrence
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

    def update(self, obs, returns, memories):
        logs = []
        for start in range(0, len(obs) - self.recurrence, self.recurrence):
            batch_loss = 0
            if self.model.recurrent and start == 0:
                memory = memories[start]
            for i in range(self.recurrence):
                if self.model.recurrent:
                    value, memory = self.model(obs[start + i], memory)
                else:
                    value, _ = self.model(obs[start + i])
                loss = (value - returns[start + i]).pow(2).mean()
                batch_loss += loss
                if self.model.recurrent and i < self.recurrence - 1:
                    memories[start + i + 1] = memory.detach()
            batch_loss /= self.recurrence
            self.optimizer.zero_grad()
            batch_loss.backward()
            self.optimizer.step()
            logs.append(batch_loss.item())
        return logs


algo = PPO(ACModel())
steps = 3 * ITERS + 1
data = [torch.randn(5, 4) for _ in range(steps)]
targets = [torch.randn(5, 1) for _ in range(steps)]
mems = [torch.zeros(5, 4) for _ in range(steps)]
print("loss " + " ".join(f"{v:.6f}" for v in algo.update(data, targets, mems)))
print(f"checksum {sum(p.sum().item() for p in algo.model.parameters()):.6f}")
