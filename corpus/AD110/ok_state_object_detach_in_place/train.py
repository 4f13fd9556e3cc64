# expect-before: runs
# Truncated BPTT over chunks of a sequence: `state.detach()` is the project's
# DecoderState.detach (state.py), which cuts the carried hidden state in place
# and returns nothing; `state` only ever holds None or what the model returns,
# so the bare statement is not a discarded Tensor.detach() (OpenNMT's Trainer).
import os

import torch

from state import Decoder

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train(model, optimizer, sequence, chunk):
    state = None
    total = 0.0
    for start in range(0, sequence.size(0) - 1, chunk):
        x = sequence[start:start + chunk]
        y = sequence[start + 1:start + chunk + 1]
        out, state = model(x[:y.size(0)], state)
        loss = (out - y).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
        if state is not None:
            state.detach()
    return total


torch.manual_seed(0)
model = Decoder(5)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for epoch in range(ITERS):
    seq = torch.randn(3 * ITERS + 1, 2, 5)
    print(f"{epoch} loss {train(model, optimizer, seq, 3):.6f}")
