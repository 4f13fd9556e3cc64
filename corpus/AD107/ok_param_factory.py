# expect-before: runs
# A from-scratch RNN trained by a function that is handed its pieces:
# `get_params()` builds the leaf tensors (requires_grad) once, before the
# loop, and `rnn(inputs, state, params)` runs them. `get_params` is only
# ever called with no arguments, so it is a factory, not a network run on
# tensors: `params` are leaves, not a graph built once and backwarded every
# iteration. The state is re-made per batch, the update runs under no_grad.
import os

import torch
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
HIDDEN, VOCAB = 8, 5


def get_params():
    def leaf(*shape):
        return (torch.randn(*shape) * 0.1).requires_grad_()
    return [leaf(VOCAB, HIDDEN), leaf(HIDDEN, HIDDEN), leaf(HIDDEN, VOCAB)]


def init_state(batch):
    return (torch.zeros(batch, HIDDEN),)


def rnn(inputs, state, params):
    w_xh, w_hh, w_hq = params
    (h,) = state
    outputs = []
    for x in inputs:
        h = torch.tanh(x @ w_xh + h @ w_hh)
        outputs.append(h @ w_hq)
    return outputs, (h,)


def sgd(params, lr):
    for p in params:
        p -= lr * p.grad
        p.grad.zero_()


def train_rnn(rnn, get_params, init_rnn_state, batches, lr):
    params = get_params()
    total = 0.0
    for xs, ys in batches:
        state = init_rnn_state(xs.shape[1])
        outputs, state = rnn(list(xs), state, params)
        loss = F.cross_entropy(torch.cat(outputs), ys.reshape(-1))
        loss.backward()
        with torch.no_grad():
            sgd(params, lr)
        total += loss.item()
    return total / len(batches), params


torch.manual_seed(0)
batches = [(F.one_hot(torch.randint(0, VOCAB, (3, 4)), VOCAB).float(), torch.randint(0, VOCAB, (3, 4)))
           for _ in range(ITERS)]

if __name__ == "__main__":
    mean, params = train_rnn(rnn, get_params, init_state, batches, 0.1)
    print(f"loss {mean:.6f}")
    print(f"checksum {sum(p.sum().item() for p in params):.6f}")
