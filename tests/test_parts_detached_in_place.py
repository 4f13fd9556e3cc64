"""An LSTM's (h, c) state cut in place part by part (`hidden[0].detach_()`,
`hidden[1].detach_()`) is cut: AD106 offered a safe, redundant detach on
SRU's enwik8 trainer. Cutting only one part still leaves the state linked."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

LOOP = """
import torch
import torch.nn as nn

lstm = nn.LSTM(4, 8)
head = nn.Linear(8, 1)
opt = torch.optim.SGD([*lstm.parameters(), *head.parameters()], lr=0.1)
hidden = (torch.zeros(1, 2, 8), torch.zeros(1, 2, 8))
for i in range(4):
    x, y = torch.randn(5, 2, 4), torch.randn(5, 2, 1)
{cuts}
    out, hidden = lstm(x, hidden)
    loss = (head(out) - y).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def _codes(cuts):
    found, _, _ = check_source(textwrap.dedent(LOOP.format(cuts=cuts)), "t.py", all_rules(), Options())
    return [f.code for f in found if f.code.startswith("AD1")]


def test_both_parts_cut_in_place_cut_the_state():
    assert _codes("    hidden[0].detach_()\n    hidden[1].detach_()") == []
    assert _codes("    hidden[1].detach_()\n    hidden[0].detach_()") == []


def test_one_part_cut_leaves_the_state_linked():
    assert _codes("    hidden[0].detach_()") == ["AD106"]


def test_parts_of_another_value_do_not_count():
    assert _codes("    other = (torch.zeros(1), torch.zeros(1))\n    other[0].detach_()\n    hidden[1].detach_()") == [
        "AD106"]
