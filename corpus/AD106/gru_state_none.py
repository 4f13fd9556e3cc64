# expect-before: error Trying to backward through the graph a second time
# A sequence classifier trained on a continuous sensor stream; the GRU state
# starts as None and is then carried from window to window.
import os

import torch
from torch import nn


def _make_stream(n):
    t = torch.arange(n, dtype=torch.float32)
    return torch.stack([torch.sin(0.1 * t), torch.cos(0.07 * t), torch.randn(n) * 0.1], dim=1)


def train(windows, win=8):
    torch.manual_seed(0)
    gru = nn.GRU(3, 16, num_layers=1)
    head = nn.Linear(16, 2)
    opt = torch.optim.Adam([*gru.parameters(), *head.parameters()], lr=1e-2)
    loss_fn = nn.CrossEntropyLoss()
    stream = _make_stream(windows * win + 1)
    state = None
    for w in range(windows):
        chunk = stream[w * win:(w + 1) * win].unsqueeze(1)
        label = (chunk[-1, :, 0] > 0).long()
        out, state = gru(chunk, state)
        loss = loss_fn(head(out[-1]), label)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"{w} loss {loss.item():.6f}")
    return gru


if __name__ == "__main__":
    ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
    model = train(ITERS)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
