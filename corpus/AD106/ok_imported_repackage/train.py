# expect-before: runs
# Truncated BPTT with `repackage_hidden` imported from the project's utils.py:
# its summary says that it cuts the state, so nothing is reported.
import os

import torch
import torch.nn as nn

from utils import repackage_hidden

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train_epoch(model, data, optimizer, criterion):
    hidden = (torch.zeros(1, 4, 16), torch.zeros(1, 4, 16))
    for i, (x, y) in enumerate(data):
        hidden = repackage_hidden(hidden)
        optimizer.zero_grad()
        output, hidden = model(x, hidden)
        loss = criterion(output.reshape(-1, 16), y.reshape(-1))
        loss.backward()
        optimizer.step()
        print(f"{i} loss {loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    lstm = nn.LSTM(8, 16)
    opt = torch.optim.SGD(lstm.parameters(), lr=0.5)
    chunks = [(torch.randn(5, 4, 8), torch.randint(0, 16, (5, 4))) for _ in range(ITERS)]
    train_epoch(lstm, chunks, opt, nn.CrossEntropyLoss())
    print(f"checksum {sum(p.sum().item() for p in lstm.parameters()):.6f}")
