# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# The model arrives as a parameter of `fit`; the only call of `fit` passes a
# StatefulLM (model.py), whose forward keeps the LSTM state on the model. `fit`
# never cuts it (model.detach_state() exists but is not called), so the second
# chunk's backward walks into the first chunk's freed graph. That `model` is a
# StatefulLM is inferred from the call, and the message says so.
import os

import torch

from model import StatefulLM


def _detach_state(state):
    """Cut recurrent state from the previous batch's graph (truncated BPTT)."""
    if isinstance(state, torch.Tensor):
        return state.detach()
    if isinstance(state, (tuple, list)):
        return type(state)(_detach_state(s) for s in state)
    return state


ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def fit(model, chunks, opt):
    for i, (x, y) in enumerate(chunks):
        opt.zero_grad()
        model.state = _detach_state(model.state)
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        opt.step()
        print(f"{i} loss {loss.item():.6f}")


torch.manual_seed(0)
net = StatefulLM()
data = [(torch.randn(5, 2, 4), torch.randn(5, 2, 1)) for _ in range(ITERS)]
fit(net, data, torch.optim.SGD(net.parameters(), lr=0.1))
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
