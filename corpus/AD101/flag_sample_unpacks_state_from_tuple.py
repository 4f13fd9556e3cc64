# expect-before: grows
# A character model samples text between training steps: `sample` threads
# `hidden` through `self.decode(inp, hidden)`, which returns a tuple (the
# logits, the new state, the input as a number), with gradients on, so every
# character's graph hangs from the last for the whole sample. The call is not a
# tensor, the element `hidden` unpacked from it is: a `.detach()` of the call
# would raise and the unpacking is not rewritten, so it is reported without a fix,
# and the message says which element carries the graph.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class CharGen(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 8)
        self.cell = nn.GRUCell(8, 16)
        self.out = nn.Linear(16, 10)

    def forward(self, inp, hidden):
        hidden = self.cell(self.emb(inp), hidden)
        return self.out(hidden), hidden

    def fit(self, steps):
        opt = torch.optim.Adam(self.parameters(), lr=1e-3)
        for it in range(steps):
            x = torch.randint(0, 10, (5,))
            logits, _ = self(x, torch.zeros(5, 16))
            loss = nn.functional.cross_entropy(logits, x)
            opt.zero_grad()
            loss.backward()
            opt.step()
            print(self.sample(6))
        return loss.item()

    def decode(self, inp, hidden):
        hidden = self.cell(self.emb(inp), hidden)
        return self.out(hidden), hidden, int(inp)

    def sample(self, n):
        hidden = torch.zeros(1, 16)
        inp = torch.zeros(1, dtype=torch.long)
        chars = []
        for t in range(n):
            logits, hidden, used = self.decode(inp, hidden)
            inp = torch.multinomial(torch.softmax(logits, dim=1).view(-1), 1)
            chars.append(int(inp))
        return chars


print(f"loss {CharGen().fit(ITERS):.6f}")
