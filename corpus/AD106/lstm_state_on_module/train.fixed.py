# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# The model keeps its LSTM state on `self.hidden` and feeds it back at every
# forward; the training loop (loop.py) never resets it, so the second batch's
# backward walks into the first batch's freed graph. The callers are in
# another file: that they do not reset the state is inferred, and the fix
# (detach in forward) is unsafe.
import os

import torch
import torch.nn as nn

from loop import fit


def _detach_state(state):
    """Cut recurrent state from the previous batch's graph (truncated BPTT)."""
    if isinstance(state, torch.Tensor):
        return state.detach()
    if isinstance(state, (tuple, list)):
        return type(state)(_detach_state(s) for s in state)
    return state


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

    def forward(self, x):
        self.hidden = _detach_state(self.hidden)
        lstm_out, self.hidden = self.lstm(x, self.hidden)
        return torch.sigmoid(self.linear(lstm_out[:, -1, :]))


if __name__ == "__main__":
    torch.manual_seed(0)
    batches = [(torch.randn(4, 5, 3), torch.randint(0, 2, (4, 1)).float()) for _ in range(ITERS)]
    fit(SeqClassifier(3, 8, batch_size=4), batches)
