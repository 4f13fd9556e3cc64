# expect-before: runs
# A sequence model trained with backpropagation through each whole sequence:
# `net` keeps its LSTM-like state on itself (seq_tracker.py), so each frame's
# forward hangs from the previous frames' graph, and the next frame's backward
# walks it again: every frame but the last needs retain_graph=True. The last
# frame retains too, though after the sequence the optimizer steps and
# `net.detach_hidden()` cuts the state, so nothing walks that graph again; it
# stays in memory until the next sequence replaces `loss`. The loop has no
# index to test without rewriting it: reported without a fix. (Read as a plain
# loop, every frame's retain looked unneeded: dropping them all would fail
# with "backward through the graph a second time".)
import os

import torch
import torch.nn.functional as F

from seq_tracker import FrameTracker

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


def train(loader, net, optimizer):
    for i, (frames, targets) in enumerate(loader):
        optimizer.zero_grad()
        for frame, target in zip(frames, targets):
            loss = F.mse_loss(net(frame), target)
            loss.backward(retain_graph=True)
        optimizer.step()
        net.detach_hidden()
        print(i, f"{loss.item():.6f}")


net = FrameTracker(batch=3)
sequences = [(torch.randn(5, 3, 4), torch.randn(5, 3, 2)) for _ in range(ITERS)]
train(sequences, net, torch.optim.SGD(net.parameters(), lr=0.05))
print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
