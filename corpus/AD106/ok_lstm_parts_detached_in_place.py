# expect-before: runs
# A character language model trained by truncated BPTT, written the 2018 way: the
# LSTM's (h, c) pair is cut in place at the top of every chunk, part by part
# (`hidden[0].detach_()`, `hidden[1].detach_()`), or whole for a GRU's single
# tensor. Both parts are cut, so no chunk's backward reaches the previous one.
import os

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class CharModel(nn.Module):
    def __init__(self, n_vocab=12, n_hidden=16, lstm=True):
        super().__init__()
        self.embed = nn.Embedding(n_vocab, 8)
        self.rnn = nn.LSTM(8, n_hidden) if lstm else nn.GRU(8, n_hidden)
        self.out = nn.Linear(n_hidden, n_vocab)
        self.lstm, self.n_hidden = lstm, n_hidden

    def init_hidden(self, batch):
        zeros = torch.zeros(1, batch, self.n_hidden)
        return (zeros, zeros.clone()) if self.lstm else zeros

    def forward(self, x, hidden):
        output, hidden = self.rnn(self.embed(x), hidden)
        return self.out(output), hidden


def train(model, chunks, optimizer, lstm=True):
    criterion = nn.CrossEntropyLoss()
    hidden = model.init_hidden(chunks[0][0].size(1))
    for step, (x, y) in enumerate(chunks):
        if lstm:
            hidden[0].detach_()
            hidden[1].detach_()
        else:
            hidden.detach_()
        model.zero_grad()
        output, hidden = model(x, hidden)
        loss = criterion(output.view(-1, output.size(-1)), y.view(-1))
        loss.backward()
        optimizer.step()
        print(f"{step} loss {loss.item():.6f}")


torch.manual_seed(0)
for use_lstm in (True, False):
    net = CharModel(lstm=use_lstm)
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    data = [(torch.randint(0, 12, (6, 3)), torch.randint(0, 12, (6, 3))) for _ in range(ITERS)]
    train(net, data, opt, lstm=use_lstm)
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
