# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# Hugging Face Accelerate, truncated BPTT: `train_epoch` receives the prepared
# model, optimizer and loss, and feeds the LSTM's state from one batch into
# the next without detaching it; `accelerator.backward(loss)` freed the
# previous batch's graph. The roles of the arguments are inferred from their
# use, so the fix is unsafe (checked by the tests).
import os

import torch
import torch.nn as nn
from accelerate import Accelerator

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(3, 8, batch_first=True)
        self.out = nn.Linear(8, 3)

    def forward(self, x, hidden):
        y, hidden = self.rnn(x, hidden)
        return self.out(y), hidden


def train_epoch(model, data, optimizer, criterion, accelerator):
    hidden = None
    for i, (x, y) in enumerate(data):
        optimizer.zero_grad()
        out, hidden = model(x, hidden)
        loss = criterion(out, y)
        accelerator.backward(loss)
        optimizer.step()
        print(f"{i} loss {loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    accelerator = Accelerator(cpu=True)
    model = LM()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model, opt = accelerator.prepare(model, opt)
    data = [(torch.randn(2, 5, 3), torch.randn(2, 5, 3)) for _ in range(ITERS)]
    train_epoch(model, data, opt, nn.MSELoss(), accelerator)
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
