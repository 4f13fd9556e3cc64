# expect-before: runs
# autodetach-test: unsafe
# A char-RNN is trained on chunks, then `generate` samples from it: the GRU
# state that `model(x, state)` returns is fed back into the next call with
# gradients on (`model.eval()` does not turn them off). Nothing backwards the
# samples, so every step's state hangs from the graph of all earlier steps and
# the whole chain stays alive until the function returns. The fix runs the
# step under no_grad; that nothing trains through the samples is inferred,
# so it is unsafe. Both print the same characters.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)
VOCAB = 12


class CharRNN(nn.Module):
    def __init__(self, vocab=VOCAB, hidden=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x, state=None):
        out, state = self.gru(self.embed(x), state)
        return self.head(out), state


def train_chunk(model, opt, chunk):
    logits, _ = model(chunk[:, :-1])
    loss = nn.functional.cross_entropy(logits.reshape(-1, VOCAB), chunk[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


def generate(model, prime, length):
    model.eval()
    logits, state = model(prime)
    x = logits[:, -1:].argmax(-1)
    chars = prime[0].tolist()
    for _ in range(length):
        with torch.no_grad():
            logits, state = model(x, state)
        x = logits.argmax(-1)
        chars.append(int(x.item()))
    model.train()
    return chars


model = CharRNN()
opt = torch.optim.Adam(model.parameters(), lr=0.01)
data = torch.randint(0, VOCAB, (ITERS, 4, 9))
for step in range(ITERS):
    print(f"{step} loss {train_chunk(model, opt, data[step]):.6f}")
print(generate(model, data[0, :1, :3], 6 * ITERS))
