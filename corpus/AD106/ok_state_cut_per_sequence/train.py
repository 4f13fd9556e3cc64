# expect-before: runs
# A sequence model trained with backpropagation through each whole sequence:
# `net` keeps its LSTM-like state on itself (clip_tracker.py), so each frame's forward
# hangs from the previous frames' graph. Every frame's backward passes
# retain_graph=True because the next frame's backward walks that graph again,
# and the optimizer steps once per sequence, after which
# `net.detach_hidden()` cuts the state. The retain is needed and nothing is
# stepped in between: no finding.
import os

import torch
import torch.nn.functional as F

from clip_tracker import FrameTracker

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
