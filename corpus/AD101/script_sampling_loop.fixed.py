# expect-before: runs
# autodetach-test: unsafe
# A sampling script that trains nothing: the character model (a module class
# of the file, so it has parameters that require grad) is fed its own state
# back at every step of a loop at module level, with gradients on. Only the
# sampled index leaves the step (`argmax`, then `int`), and nothing backwards
# anything, so each step's state hangs from every earlier step's graph and the
# whole sample's activations stay alive until the loop ends. That no later
# forward trains through the state is inferred, so the fix (the step under
# no_grad) is unsafe.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class CharModel(nn.Module):
    def __init__(self, vocab=24, dim=10, hidden=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, x, h):
        y, h = self.rnn(self.emb(x), h)
        return self.out(y), h


model = CharModel()
model.eval()
x = torch.zeros(1, 1, dtype=torch.long)
h = None
sample = []
for step in range(ITERS * 10):
    with torch.no_grad():
        logits, h = model(x, h)
    x = logits.argmax(-1)
    sample.append(int(x))
print(f"checksum {sum(i * (k + 1) for k, i in enumerate(sample)) / len(sample):.6f}")
