# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# Truncated BPTT with the hidden state on the trainer (self.hidden), never
# repackaged, in a file that imports torch.nn and torch.nn.functional but not
# `torch` itself. The fix detaches the state at the start of each chunk with
# a small helper, which needs `torch.Tensor`: it adds `import torch`.
# The trainer's model and optimizer are inferred from their use, so the fix is unsafe.
import os

import torch
import torch.nn.functional as F
from torch import manual_seed, randint

from model import CharRNN


def _detach_state(state):
    """Cut recurrent state from the previous batch's graph (truncated BPTT)."""
    if isinstance(state, torch.Tensor):
        return state.detach()
    if isinstance(state, (tuple, list)):
        return type(state)(_detach_state(s) for s in state)
    return state


ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class TBPTTTrainer:
    def __init__(self, model, optimizer, bptt=8):
        self.model = model
        self.optimizer = optimizer
        self.bptt = bptt
        self.hidden = None

    def train_chunk(self, x, y):
        self.hidden = _detach_state(self.hidden)
        logits, self.hidden = self.model(x, self.hidden)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def train_stream(self, stream):
        for i in range(0, stream.size(1) - 1 - self.bptt, self.bptt):
            loss = self.train_chunk(stream[:, i:i + self.bptt], stream[:, i + 1:i + 1 + self.bptt])
            print(f"{i} loss {loss:.6f}")


manual_seed(0)
model = CharRNN()
trainer = TBPTTTrainer(model, model.make_optimizer())
trainer.train_stream(randint(0, 20, (4, 8 * ITERS + 2)))
print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f}")
