"""A kept value that may be a number or a tuple where the fix would run gets no
`.detach()` fix (it would raise AttributeError): a term that stays `0.0` until an
`if` makes it a tensor, recurrent state bound to a tuple. Where every path makes
it a tensor the fix stays."""
import pathlib

import pytest

from autodetach.engine import check_code, fix_code

HEAD = """\
import torch
import torch.nn as nn
gen = nn.Linear(4, 4)
disc = nn.Linear(4, 1)
opt = torch.optim.SGD(gen.parameters(), lr=0.1)
adv_history = []
for it in range(8):
    x = torch.randn(8, 4)
    fake = gen(x)
    loss_g = (fake - x).pow(2).mean()
"""

ELIF = """\
    adv_loss = 0
    if it > 5:
        adv_loss = disc(fake).mean()
    elif it > 3:
        adv_loss = disc(fake).sum()
    loss_g = loss_g + adv_loss
    opt.zero_grad()
    loss_g.backward()
    opt.step()
    adv_history.append(adv_loss)
"""

ALWAYS = """\
    adv_loss = 0.0
    adv_loss += disc(fake).mean()
    loss_g = loss_g + adv_loss
    opt.zero_grad()
    loss_g.backward()
    opt.step()
    adv_history.append(adv_loss)
"""

LSTM = """\
import torch
import torch.nn as nn
lstm = nn.LSTM(4, 4)
head = nn.Linear(4, 1)
opt = torch.optim.SGD(head.parameters(), lr=0.1)
for episode in range(4):
    h_out = (torch.zeros(1, 1, 4), torch.zeros(1, 1, 4))
    kept = []
    for chunk in range(2):
        for t in range(4):
            h_in = h_out
            out, h_out = lstm(torch.randn(1, 1, 4), h_in)
            kept.append(out.detach())
        loss = head(torch.cat(kept)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
"""


CASE = pathlib.Path(__file__).resolve().parent.parent / "corpus" / "AD102" / "flag_adv_term_number_before_start.py"


@pytest.mark.parametrize("src", [CASE.read_text(), HEAD + ELIF], ids=["if", "elif"])
def test_number_until_an_if_runs_gets_no_fix(src):
    found = [f for f in check_code(src, select=["AD102"]) if f.code == "AD102" and "`adv_loss`" in f.message]
    new, _ = fix_code(src, select=["AD102"], unsafe=True)
    assert found, "the graph kept in the history is still reported"
    assert all(f.fix == "none" for f in found), [(f.fix, f.message) for f in found]
    assert all("still the plain value" in f.message for f in found)
    assert new == src


def test_tensor_on_every_path_keeps_its_fix():
    new, _ = fix_code(HEAD + ALWAYS, select=["AD101", "AD102"])
    assert "adv_history.append(adv_loss.detach())" in new


def test_recurrent_state_bound_to_a_tuple_gets_no_detach():
    found = [f for f in check_code(LSTM, select=["AD101"]) if f.code == "AD101"]
    new, _ = fix_code(LSTM, select=["AD101"], unsafe=True)
    assert "h_out.detach()" not in new
    stored = [f for f in found if "`h_in` keeps" in f.message]
    assert stored and all(f.fix == "none" for f in stored), [(f.fix, f.message) for f in found]
    # the threaded-state finding on the call (recall70) may wrap it in no_grad: a tuple needs no .detach() there
    assert all("no_grad" in f.message for f in found if f.fix != "none")


TRACKER = """\
import collections
import torch
import torch.nn as nn
from metrics import Tracker
net = nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
tot = Tracker()
for it in range(4):
    loss = net(torch.randn(8, 4)).pow(2).mean()
    info = Tracker()
    info["loss"] = loss
    opt.zero_grad()
    loss.backward()
    opt.step()
    tot = (tot * 0.5) + info
"""


@pytest.mark.parametrize("name", ["tot", "tot_loss"])
def test_sum_of_dicts_gets_no_detach(name):
    src = TRACKER.replace("tot", name)
    found = [f for f in check_code(src, select=["AD101", "AD102"]) if f"`{name}`" in f.message]
    assert found, "the graph kept in the running sum is still reported"
    assert all(f.fix == "none" for f in found), [(f.code, f.fix, f.message) for f in found]
    new, _ = fix_code(src, select=["AD101", "AD102"], unsafe=True)
    assert new == src
