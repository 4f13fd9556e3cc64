# expect-before: error Trying to backward through the graph a second time
# autodetach-test: unsafe
# A detection lab's epoch function: the model is handed in, its output tuple is
# read by index (`outputs[0]` boxes, `outputs[1]` class logits) and each loss is
# backwarded on its own before one step. Here the heads share a trunk, so the
# second backward needs the freed graph; that the two elements share a graph is
# inferred (the forward is not followed element by element: two heads on
# precomputed features would share none), so the retain is offered as unsafe.
import os

import torch
import torch.nn.functional as F

from models import Detector

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


def train_epoch(model, loader, optimizer):
    model.train()
    total = 0.0
    for inputs, boxes, labels in loader:
        outputs = model(inputs)
        b_loss = torch.abs(outputs[0] - boxes).sum(1).mean()
        c_loss = F.cross_entropy(outputs[1], labels)
        optimizer.zero_grad()
        b_loss.backward(retain_graph=True)
        c_loss.backward()
        optimizer.step()
        total += b_loss.item() + c_loss.item()
    return total


if __name__ == "__main__":
    torch.manual_seed(0)
    net = Detector()
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    data = [(torch.randn(5, 8), torch.randn(5, 4), torch.randint(0, 3, (5,))) for _ in range(ITERS)]
    print(f"loss {train_epoch(net, data, opt):.6f}")
    print(f"checksum {sum(p.sum().item() for p in net.parameters()):.6f}")
