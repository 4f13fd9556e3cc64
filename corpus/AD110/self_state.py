# expect-before: error Trying to backward through the graph a second time
# A streaming model keeps its recurrent state on `self` and tries to cut it at
# the start of each call with `self.h.detach()`, which returns a new tensor
# that nobody keeps.
import os

import torch
from torch import nn, optim
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class StreamingRNN(nn.Module):
    def __init__(self, n_in, n_hidden):
        super().__init__()
        self.cell = nn.RNNCell(n_in, n_hidden)
        self.out = nn.Linear(n_hidden, 1)
        self.h = torch.zeros(1, n_hidden)

    def forward(self, chunk):
        self.h.detach()
        preds = []
        for x in chunk:
            self.h = self.cell(x.unsqueeze(0), self.h)
            preds.append(self.out(self.h))
        return torch.cat(preds)


def main():
    torch.manual_seed(0)
    model = StreamingRNN(2, 16)
    opt = optim.Adam(model.parameters(), lr=1e-2)
    signal = torch.randn(ITERS * 5 + 1, 2).cumsum(0) * 0.1
    for it in range(ITERS):
        chunk = signal[it * 5:(it + 1) * 5]
        target = signal[it * 5 + 1:(it + 1) * 5 + 1, :1]
        loss = F.mse_loss(model(chunk), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"{it} loss {loss.item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")


if __name__ == "__main__":
    main()
