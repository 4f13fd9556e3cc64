# expect-before: runs
# A decoder returns an output object: `loss` sums the steps' losses as tensors
# (it is backwarded), while `loss_value`, a float the constructor defaults to 0,
# adds each step's `.item()`. The loop caches and averages `loss_value` only:
# Python floats, no graph from one batch to the next.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class DecodeOutput:
    def __init__(self, tokens, loss=0, loss_value: float = 0):
        self.tokens = tokens
        self.loss = loss
        self.loss_value = loss_value


class Decoder(nn.Module):
    def __init__(self, vocab=12, width=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, width)
        self.cell = nn.GRUCell(width, width)
        self.out = nn.Linear(width, vocab)

    def forward(self, targets):
        h = torch.zeros(targets.size(1), self.cell.hidden_size)
        r = DecodeOutput(torch.zeros_like(targets))
        prev = torch.zeros(targets.size(1), dtype=torch.long)
        for t in range(targets.size(0)):
            h = self.cell(self.emb(prev), h)
            nll = nn.functional.cross_entropy(self.out(h), targets[t])
            r.loss += nll
            r.loss_value += nll.item()
            prev = targets[t]
        return r


def train_batch(model, optimizer, targets):
    optimizer.zero_grad()
    out = model(targets)
    out.loss.backward()
    optimizer.step()
    return out.loss_value / targets.size(0)


model = Decoder()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
cached_losses, plot_losses = [], []
for batch in range(ITERS * 2):
    targets = torch.randint(0, 12, (5, 3))
    loss = train_batch(model, optimizer, targets)
    cached_losses.append(loss)
    if len(cached_losses) == 2:
        plot_losses.append(sum(cached_losses) / len(cached_losses))
        cached_losses = []
print(f"last {plot_losses[-1]:.6f}")
