# expect-before: runs
# A self-test that feeds a memory model its own memory back, step after step,
# with gradients on: the model's `_remember` builds the new memory under
# `torch.no_grad()` and `forward` hands that back, so no step's graph hangs
# from the last (Transformer-XL's segment memory).
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class SegmentMemory(nn.Module):
    def __init__(self, vocab=30, width=12, keep=5):
        super().__init__()
        self.emb = nn.Embedding(vocab, width)
        self.mix = nn.Linear(2 * width, width)
        self.out = nn.Linear(width, vocab)
        self.keep = keep

    def _remember(self, hids, memory):
        with torch.no_grad():
            joined = torch.cat([memory, hids], 0)
            fresh = joined[-self.keep:]
        return fresh

    def _encode(self, tokens, memory):
        x = self.emb(tokens)
        ctx = memory.mean(0, keepdim=True).expand(x.size(0), -1)
        h = torch.tanh(self.mix(torch.cat([x, ctx], -1)))
        return h, self._remember(h, memory)

    def forward(self, tokens, targets, memory):
        if memory is None:
            memory = torch.zeros(1, self.emb.embedding_dim)
        hidden, memory = self._encode(tokens, memory)
        loss = nn.functional.cross_entropy(self.out(hidden), targets)
        return loss, memory


model = SegmentMemory()
memory = None
for step in range(ITERS * 2):
    tokens = torch.randint(0, 30, (7,))
    targets = torch.randint(0, 30, (7,))
    loss, memory = model(tokens, targets, memory)
    print(f"step {step} loss {loss.item():.6f}")
