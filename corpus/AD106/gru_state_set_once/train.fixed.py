# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A forecaster keeps its GRU state on `self.state`, set by `init_state`, which only
# `__init__` calls: nothing in the project resets it per batch (trainer.py steps every
# batch), so forward feeds the previous batch's state, with its freed graph, into the
# next one. That no caller resets it is inferred from the project's files: the fix
# (detach in forward) is unsafe.
import os

import torch
from torch import nn

from trainer import Trainer


def _detach_state(state):
    """Cut recurrent state from the previous batch's graph (truncated BPTT)."""
    if isinstance(state, torch.Tensor):
        return state.detach()
    if isinstance(state, (tuple, list)):
        return type(state)(_detach_state(s) for s in state)
    return state


ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Forecaster(nn.Module):
    def __init__(self, n_in, n_hidden, batch):
        super().__init__()
        self.n_hidden = n_hidden
        self.gru = nn.GRU(n_in, n_hidden, batch_first=True)
        self.head = nn.Linear(n_hidden, 1)
        self.init_state(batch)

    def init_state(self, batch):
        self.state = torch.zeros(1, batch, self.n_hidden)

    def forward(self, x):
        self.state = _detach_state(self.state)
        out, self.state = self.gru(x, self.state)
        return self.head(out[:, -1])


if __name__ == "__main__":
    torch.manual_seed(0)
    data = [(torch.randn(3, 5, 2), torch.randn(3, 1)) for _ in range(ITERS)]
    Trainer(Forecaster(2, 6, batch=3)).fit(data)
    print(f"batches {ITERS} done {1.0:.6f}")
