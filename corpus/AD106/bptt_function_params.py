# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# Truncated BPTT in `train_epoch(model, data, optimizer, criterion)`: the model
# comes in as an argument, so that it is a module is inferred from its use
# (called on tensors in a function that steps an optimizer). The hidden state
# returned by the model is fed into the next chunk without being detached.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class CharRNN(nn.Module):
    def __init__(self, vocab=12, hid=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, hid)
        self.rnn = nn.GRU(hid, hid)
        self.out = nn.Linear(hid, vocab)

    def forward(self, x, h):
        y, h = self.rnn(self.emb(x), h)
        return self.out(y), h


def train_epoch(model, data, optimizer, criterion):
    hidden = torch.zeros(1, 4, 16)
    for i, (x, y) in enumerate(data):
        optimizer.zero_grad()
        output, hidden = model(x, hidden)
        loss = criterion(output.view(-1, 12), y.view(-1))
        loss.backward()
        optimizer.step()
        print(f"{i} loss {loss.item():.6f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    net = CharRNN()
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    chunks = [(torch.randint(0, 12, (5, 4)), torch.randint(0, 12, (5, 4))) for _ in range(ITERS)]
    train_epoch(net, chunks, opt, nn.CrossEntropyLoss())
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
