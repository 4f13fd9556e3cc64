import torch
import torch.nn as nn


class CharRNN(nn.Module):
    def __init__(self, vocab=20, hid=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, hid)
        self.rnn = nn.GRU(hid, hid, batch_first=True)
        self.out = nn.Linear(hid, vocab)

    def forward(self, tokens, hidden=None):
        h, hidden = self.rnn(self.emb(tokens), hidden)
        return self.out(h), hidden

    def make_optimizer(self):
        return torch.optim.SGD(self.parameters(), lr=0.5)
