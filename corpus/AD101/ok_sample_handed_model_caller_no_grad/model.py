"""A character model whose recurrent state starts from `init_hidden`."""
import torch
import torch.nn as nn


class CharLSTM(nn.Module):
    def __init__(self, vocab, hidden=16):
        super().__init__()
        self.hidden = hidden
        self.embed = nn.Embedding(vocab, hidden)
        self.lstm = nn.LSTM(hidden, hidden)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x, hidden):
        out, hidden = self.lstm(self.embed(x), hidden)
        return self.head(out), hidden

    def init_hidden(self, batch=1):
        return (torch.zeros(1, batch, self.hidden), torch.zeros(1, batch, self.hidden))
