import torch.nn as nn


class DecoderState:
    """The decoder's carried state; `detach()` cuts it in place and returns nothing."""

    def __init__(self, hidden):
        self.hidden = hidden

    def detach(self):
        self.hidden = self.hidden.detach()


class Decoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.rnn = nn.GRU(dim, dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x, state):
        y, hidden = self.rnn(x, None if state is None else state.hidden)
        return self.out(y), DecoderState(hidden)
