# expect-before: runs
# A sampling script that trains nothing: `generate` feeds the character
# model's state back at every step with no `torch.no_grad()` of its own, but
# its only caller, `main`, is decorated with `torch.no_grad()`: no step builds
# a graph, so there is no chain to keep.
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


def generate(n):
    x = torch.zeros(1, 1, dtype=torch.long)
    h = None
    sample = []
    for step in range(n):
        logits, h = model(x, h)
        x = logits.argmax(-1)
        sample.append(int(x))
    return sample


@torch.no_grad()
def main():
    sample = generate(ITERS * 10)
    print(f"checksum {sum(i * (k + 1) for k, i in enumerate(sample)) / len(sample):.6f}")


if __name__ == "__main__":
    main()
