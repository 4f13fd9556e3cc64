"""AD106's cut, once written, is not written again: a chain that runs through
another value (`prev = x`, fed back as the next batch's input) keeps the
finding, and a second `h = h.detach()` would not change that, so the fix
passes must settle with one cut (they ran out of passes before)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

SRC = """
import torch
import torch.nn as nn

rnn = nn.GRUCell(4, 4)
opt = torch.optim.SGD(rnn.parameters(), lr=0.1)
prev = torch.randn(2, 4)
for batch in range(3):
    h = torch.zeros(2, 4)
    x = prev
    for t in range(3):
        h = rnn(x, h)
        x = h
    prev = x
    loss = h.sum()
    opt.zero_grad()
    loss.backward(retain_graph=True)
    opt.step()
"""


def test_ad106_cut_is_written_once_and_fixes_settle(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(SRC))
    _, new, _ = check_source(path.read_text(), str(path), all_rules(), Options(fix=True, unsafe=True))
    assert new is not None and new.count("h = h.detach()") == 1
    _, again, _ = check_source(new, str(path), all_rules(), Options(fix=True, unsafe=True))
    assert again is None
