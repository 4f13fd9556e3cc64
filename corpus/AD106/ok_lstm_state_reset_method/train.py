# expect-before: runs
# The model keeps its LSTM state on `self.hidden`, and offers `reset_state`
# to start each batch afresh: the class manages its state, so nothing is
# reported (the loop calls it).
import os

import torch
import torch.nn as nn

from loop import fit

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class SeqClassifier(nn.Module):
    def __init__(self, input_dim, hidden_dim, batch_size):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.lstm = nn.LSTM(input_dim, hidden_dim, batch_first=True)
        self.linear = nn.Linear(hidden_dim, 1)
        self.hidden = self.init_hidden(batch_size)

    def init_hidden(self, batch_size):
        return (torch.zeros(1, batch_size, self.hidden_dim), torch.zeros(1, batch_size, self.hidden_dim))

    def reset_state(self, batch_size):
        self.hidden = self.init_hidden(batch_size)

    def forward(self, x):
        lstm_out, self.hidden = self.lstm(x, self.hidden)
        return torch.sigmoid(self.linear(lstm_out[:, -1, :]))


if __name__ == "__main__":
    torch.manual_seed(0)
    batches = [(torch.randn(4, 5, 3), torch.randint(0, 2, (4, 1)).float()) for _ in range(ITERS)]
    fit(SeqClassifier(3, 8, batch_size=4), batches)
