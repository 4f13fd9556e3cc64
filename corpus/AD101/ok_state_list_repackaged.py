# expect-before: runs
# Truncated BPTT over two interleaved streams: each stream keeps its own
# hidden state in a list, and the entry is cut from its graph by index just
# before it is fed back. Storing the new state into the list is then fine.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def cut_state(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(cut_state(v) for v in h)


rnn = nn.GRU(3, 6)
head = nn.Linear(6, 1)
opt = torch.optim.Adam(list(rnn.parameters()) + list(head.parameters()), lr=1e-2)
states = [torch.zeros(1, 2, 6) for _ in range(2)]

for it in range(ITERS):
    opt.zero_grad()
    k = 0
    while k < len(states):
        x = torch.randn(5, 2, 3)
        states[k] = cut_state(states[k])
        out, states[k] = rnn(x, states[k])
        loss = head(out).pow(2).mean()
        loss.backward()
        k += 1
    opt.step()
    print(f"{it} loss {loss.item():.6f}")

print(f"checksum {sum(p.sum().item() for p in rnn.parameters()):.6f}")
