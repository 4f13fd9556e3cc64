# expect-before: runs
# A variational circuit keeps its simulator device on the module and its
# forward applies the gates to the state the last call left (no reset), so
# each step's loss hangs from every earlier step's graph and the
# retain_graph=True is what lets the next backward walk them (torchquantum's
# QAOA example). Whether the device keeps such state is inferred: the gate
# functions live in another file and are not read, so dropping the retain is
# offered only as an unsafe fix (it fails at the second step here).
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
        rotate(self.device, self.angles)
        return expectation(self.device)


model = Circuit(4)
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
for step in range(ITERS):
    optimizer.zero_grad()
    loss = model()
    loss.backward(retain_graph=True)
    optimizer.step()
    print(f"{step} loss {loss.item():.6f}")
print(f"angles {model.angles.sum().item():.6f}")
