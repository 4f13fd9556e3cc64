"""A module whose forward hands an object it keeps to code that is not read may
carry this call's graph into the next one (analysis/handed_state.py): an AD104
verdict that the retain is unneeded rests on that inference, so its fix is unsafe."""
import textwrap

from autodetach import check_code

SRC = """
import torch
import torch.nn as nn
from sim import Device, rotate, expectation


class Circuit(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.device = Device(n)
        self.angles = nn.Parameter(torch.rand(n))

    def forward(self):
        BODY


model = Circuit(4)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for step in range(3):
    opt.zero_grad()
    loss = model()
    loss.backward(retain_graph=True)
    opt.step()
"""


def _ad104(body):
    src = textwrap.dedent(SRC).replace("BODY", body)
    return [(f.fix, "inferred" in f.message) for f in check_code(src, select=["AD104"])]


def test_kept_object_handed_to_unread_code_makes_the_fix_unsafe():
    assert _ad104("rotate(self.device, self.angles)\n        return expectation(self.device)") == [
        ("unsafe", True)]


def test_a_forward_that_hands_nothing_it_keeps_stays_safe():
    assert _ad104("return (torch.cos(self.angles) ** 2).sum()") == [("safe", False)]
