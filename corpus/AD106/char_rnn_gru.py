# expect-before: error Trying to backward through the graph a second time
# A char-level GRU trained with truncated BPTT on one long stream: the hidden
# state returned for one chunk is fed into the next without being cut.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

text = "the quick brown fox jumps over the lazy dog " * 20
vocab = sorted(set(text))
stoi = {ch: i for i, ch in enumerate(vocab)}
data = torch.tensor([stoi[ch] for ch in text])
seq_len, hidden_size = 12, 32

embed = nn.Embedding(len(vocab), 16)
rnn = nn.GRU(16, hidden_size, batch_first=True)
decoder = nn.Linear(hidden_size, len(vocab))
params = list(embed.parameters()) + list(rnn.parameters()) + list(decoder.parameters())
optimizer = torch.optim.Adam(params, lr=3e-3)
criterion = nn.CrossEntropyLoss()

h = torch.zeros(1, 1, hidden_size)
for it in range(ITERS):
    start = (it * seq_len) % (len(data) - seq_len - 1)
    x = data[start:start + seq_len].unsqueeze(0)
    y = data[start + 1:start + seq_len + 1].unsqueeze(0)
    out, h = rnn(embed(x), h)
    loss = criterion(decoder(out).view(-1, len(vocab)), y.view(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"{it} loss {loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in params):.6f}")
