# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A flow's statistics module (this file) keeps running moments of its input and has no
# parameters of its own; the coupling block in blocks.py, which has a network, imports it and
# calls it on the block's output. In training mode the moments are rebound from the batch
# moments, which carry the network's graph: each step chains the buffers onto the last step's
# graph. A sensitivity check in eval mode after training reads the moments, and its backward
# walks into the training steps' freed graphs. (The fix is unsafe: that the input carries a
# graph is inferred from blocks.py, which builds this module as a part of a trained block.)
import os
import sys

import torch
import torch.nn as nn

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class RunningMoments(nn.Module):
    def __init__(self, features, decay=0.1):
        super().__init__()
        self.decay = decay
        self.register_buffer("avg", torch.zeros(features))
        self.register_buffer("spread", torch.ones(features))

    def forward(self, h):
        if self.training:
            mean, var = h.mean(0), h.var(0)
            self.avg = self.avg - self.decay * (self.avg - mean)
            self.spread = self.spread - self.decay * (self.spread - var)
            return mean, var
        return self.avg, self.spread


def main():
    sys.modules.setdefault("train", sys.modules["__main__"])  # blocks.py imports this script's classes
    import blocks

    torch.manual_seed(0)
    model = nn.Sequential(blocks.AffineCoupling(6), blocks.AffineCoupling(6))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    model.train()
    for it in range(ITERS):
        x = torch.randn(16, 6)
        loss = model(x).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"{it} loss {loss.item():.6f}")
    model.eval()
    probe = torch.randn(3, 6, requires_grad=True)
    model(probe).sum().backward()
    print(f"sensitivity {probe.grad.abs().sum().item():.6f}")
    print(f"checksum {sum(p.sum().item() for p in model.parameters()):.6f} iters {ITERS}")


if __name__ == "__main__":
    main()
