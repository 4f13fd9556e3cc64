# expect-before: runs
# Truncated backpropagation through time with the state cut by a helper
# object handed in (`helper.repackage_hidden(hidden)`), as in the positive
# case, but each batch also backwards a small penalty on the same logits
# after the main loss: that second backward walks the LSTM graph of the batch
# again, so the first one's retain_graph=True is needed.
import os

import torch
from torch import nn

from seq_helper import SequenceHelper

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(5, 16, batch_first=True)
        self.out = nn.Linear(16, 1)

    def forward(self, x, hidden):
        y, hidden = self.rnn(x, hidden)
        return self.out(y[:, -1]), hidden


def train_epoch(helper, model, optimizer, data, targets):
    hidden = (torch.zeros(1, 4, 16), torch.zeros(1, 4, 16))
    criterion = nn.BCEWithLogitsLoss()
    for x, y in zip(helper.batches(data, ITERS), helper.batches(targets, ITERS)):
        optimizer.zero_grad()
        hidden = helper.repackage_hidden(hidden)
        logits, hidden = model(x, hidden)
        loss = criterion(logits.squeeze(1), y)
        loss.backward(retain_graph=True)
        (0.01 * logits.pow(2).mean()).backward()
        optimizer.step()
    return loss


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Tagger()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    data = torch.randn(4 * ITERS, 3, 5)
    targets = (data.sum(dim=(1, 2)) > 0).float()
    for epoch in range(2):
        loss = train_epoch(SequenceHelper(4), model, optimizer, data, targets)
        if loss < 1e-4:
            break
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
