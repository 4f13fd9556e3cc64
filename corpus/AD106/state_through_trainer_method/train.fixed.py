# expect-before: error modified by an inplace operation
# autodetach-test: unsafe
# Truncated BPTT through a trainer object of another file: `trainer.loss(x, y,
# h)` runs the GRU language model on the chunk and the state it is handed and
# returns the loss with the new state, which the loop feeds into the next
# chunk's call. `retain_graph=True` hides the "backward through the graph a
# second time" error, but the second backward walks into the first chunk's
# graph, whose weights the optimizer step has changed in place. The fix
# detaches the state before it is fed back; that the trainer returns the
# state with its graph is read from trainer.py, and that the author meant
# truncation is inferred, so it is unsafe.
import os

import torch

from trainer import StreamTrainer


def _detach_state(state):
    """Cut recurrent state from the previous batch's graph (truncated BPTT)."""
    if isinstance(state, torch.Tensor):
        return state.detach()
    if isinstance(state, (tuple, list)):
        return type(state)(_detach_state(s) for s in state)
    return state


ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)

trainer = StreamTrainer()
optimizer = torch.optim.SGD(trainer.parameters(), lr=0.1)
stream = torch.randint(0, 11, (ITERS * 5 + 1, 3))
h = torch.zeros(1, 3, 16)
for i in range(ITERS):
    x, y = stream[i * 5:(i + 1) * 5], stream[i * 5 + 1:(i + 1) * 5 + 1]
    optimizer.zero_grad()
    h = _detach_state(h)
    loss, h = trainer.loss(x, y, h)
    loss.backward(retain_graph=True)
    optimizer.step()
    print(f"{i} loss {loss.item():.6f}")
