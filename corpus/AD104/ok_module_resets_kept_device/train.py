# expect-before: runs
# The same circuit with the device's state reset at the start of every forward
# (the fix torchquantum's QAOA example got): each step builds its own graph
# from a fresh state, and a plain backward is enough.
import os

import torch
import torch.nn as nn

from device_ops import Device, expectation, rotate

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
torch.manual_seed(0)


class Circuit(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.device = Device(n)
        self.angles = nn.Parameter(torch.rand(n))

    def forward(self):
        self.device.reset()
        rotate(self.device, self.angles)
        return expectation(self.device)


model = Circuit(4)
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
for step in range(ITERS):
    optimizer.zero_grad()
    loss = model()
    loss.backward()
    optimizer.step()
    print(f"{step} loss {loss.item():.6f}")
print(f"angles {model.angles.sum().item():.6f}")
