import torch.nn as nn


class LM(nn.Module):
    def __init__(self, vocab=20, hid=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, hid)
        self.rnn = nn.LSTM(hid, hid, batch_first=True)
        self.out = nn.Linear(hid, vocab)
        self.hidden = None

    def forward(self, tokens):
        h, self.hidden = self.rnn(self.emb(tokens), self.hidden)
        return self.out(h)
