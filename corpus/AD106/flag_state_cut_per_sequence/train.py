# expect-before: error modified by an inplace operation
# A sequence model trained frame by frame: `net` keeps its LSTM-like state on
# itself (tracker.py), and the loop cuts it with `net.detach_hidden()` once
# per sequence, after the frame loop. But the frame loop backwards and steps
# the optimizer on every frame: the second frame's forward reads the state
# that hangs from the first frame's graph, so its backward walks into that
# graph, whose saved weights the first step changed in place. With
# retain_graph=True (added to silence "backward through the graph a second
# time") the run fails on the in-place change instead. Cutting the state
# after every step, or stepping once per sequence, is the author's choice:
# reported without a fix.
import os

import torch
import torch.nn.functional as F

from tracker import FrameTracker

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def train(loader, net, optimizer):
    for i, (frames, targets) in enumerate(loader):
        for frame, target in zip(frames, targets):
            optimizer.zero_grad()
            loss = F.mse_loss(net(frame), target)
            loss.backward(retain_graph=True)
            optimizer.step()
        net.detach_hidden()
        print(i, f"{loss.item():.6f}")


net = FrameTracker(batch=3)
sequences = [(torch.randn(5, 3, 4), torch.randn(5, 3, 2)) for _ in range(ITERS)]
train(sequences, net, torch.optim.SGD(net.parameters(), lr=0.05))
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
