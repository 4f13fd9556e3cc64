# expect-before: runs
# A learned optimizer: in `unroll`, a recurrent meta-learner proposes the
# learner's weights step after step, each step reading the state the last
# one left (`states[-1]`), and `unroll` returns the final weights. The
# caller's meta-loss backwards through them, down the whole chain of
# states into the meta-learner's weights. The chain is kept on purpose for
# that one backward and freed when the episode ends: nothing to report (a
# `.detach()` of the kept states would cut the meta-gradient: the checksum
# moves from -1.302927 to -1.374430).
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class MetaLearner(nn.Module):
    def __init__(self, hidden=4):
        super().__init__()
        self.cell = nn.GRUCell(2, hidden)
        self.out = nn.Linear(hidden, 1)

    def forward(self, inputs, w, h):
        h = self.cell(inputs, h)
        return w - 0.1 * self.out(h).squeeze(1), h


def unroll(meta, w0, x, y, steps):
    w = w0
    states = [None]
    for _ in range(steps):
        leaf = w.detach().requires_grad_()
        loss = F.mse_loss(x @ leaf, y)
        loss.backward()  # the learner's own gradient, the meta-learner's input
        inputs = torch.stack([leaf.grad, loss.detach().expand_as(leaf.grad)], 1)
        w, h = meta(inputs, w, states[-1])
        states.append(h)
    return w


if __name__ == "__main__":
    meta = MetaLearner()
    opt = torch.optim.Adam(meta.parameters(), lr=0.01)
    w0 = torch.zeros(5)
    for episode in range(ITERS):
        x, true_w = torch.randn(16, 5), torch.randn(5)
        w = unroll(meta, w0, x, x @ true_w, ITERS)
        xt = torch.randn(16, 5)
        meta_loss = F.mse_loss(xt @ w, xt @ true_w)
        opt.zero_grad()
        meta_loss.backward()
        opt.step()
        print(f"episode {episode} meta loss {meta_loss.item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in meta.parameters()):.6f}")
