# expect-before: runs
# Truncated BPTT that rebinds the cut state: `h = h.detach()`.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

vocab, seq_len = 20, 8
embed = nn.Embedding(vocab, 12)
rnn = nn.GRU(12, 24)
head = nn.Linear(24, vocab)
params = [*embed.parameters(), *rnn.parameters(), *head.parameters()]
optimizer = torch.optim.SGD(params, lr=0.5)
criterion = nn.CrossEntropyLoss()
stream = torch.randint(0, vocab, (seq_len * ITERS + 1, 2))

h = torch.zeros(1, 2, 24)
for it in range(ITERS):
    x = stream[it * seq_len:(it + 1) * seq_len]
    y = stream[it * seq_len + 1:(it + 1) * seq_len + 1]
    h = h.detach()
    out, h = rnn(embed(x), h)
    loss = criterion(head(out).view(-1, vocab), y.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"{it} loss {loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in params):.6f}")
