# expect-before: runs
# A recurrent model (PredRNN-style, as fixed) whose forward returns its own
# loss: it collects one decoupling term per step, with their graphs, in a
# list and combines them with `torch.stack(terms)`, so the decoupling term
# trains `self.adapter` (its only path to the loss) with the rest.
import os

import torch
from torch import nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class RNN(nn.Module):
    def __init__(self, hidden=8, beta=0.5):
        super().__init__()
        self.cell = nn.GRUCell(4, hidden)
        self.adapter = nn.Linear(hidden, hidden, bias=False)
        self.out = nn.Linear(hidden, 4)
        self.mse = nn.MSELoss()
        self.beta = beta

    def forward(self, frames):
        h = torch.zeros(frames.shape[1], self.cell.hidden_size)
        preds, decouple = [], []
        for t in range(frames.shape[0] - 1):
            prev = h
            h = self.cell(frames[t], h)
            delta = self.adapter(h - prev)
            decouple.append(torch.cosine_similarity(delta, self.adapter(prev), dim=1).abs().mean())
            preds.append(self.out(h))
        decouple_loss = torch.mean(torch.stack(decouple))
        loss = self.mse(torch.stack(preds), frames[1:]) + self.beta * decouple_loss
        return torch.stack(preds), loss


class Trainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

    def train(self, frames):
        self.optimizer.zero_grad()
        _, loss = self.model(frames)
        loss.backward()
        self.optimizer.step()
        return loss.item()


torch.manual_seed(0)
trainer = Trainer(RNN())
for it in range(ITERS):
    print(f"loss {trainer.train(torch.randn(5, 3, 4)):.6f}")
print(f"checksum {sum(p.sum().item() for p in trainer.model.parameters()):.6f}")
