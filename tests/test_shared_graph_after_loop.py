"""One graph, built by a loop that has ended, backwarded twice after it: a
shared graph the first pass frees (AD105), not a link across iterations
(AD101); and two backwarding helper calls in a row, outside any loop, are
walked like a loop's (`update(opt_a, loss); update(opt_c, loss)`)."""
import textwrap

import libcst as cst

from autodetach.context import FileContext
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

SETUP = """
import torch
import torch.nn as nn


def update_model(optimizer, loss):
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


actor, critic = nn.Linear(4, 1), nn.Linear(4, 1)
opt_a = torch.optim.SGD(actor.parameters(), lr=0.1)
opt_c = torch.optim.SGD(critic.parameters(), lr=0.1)
"""


def _ad1(tmp_path, src):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(src))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return sorted((f.code, f.line) for f in findings if f.code.startswith("AD1"))


def test_loss_summed_in_an_ended_loop_backwarded_twice_is_shared(tmp_path):
    src = SETUP + """
loss = torch.tensor(0.0)
for x in torch.randn(3, 2, 4):
    loss = loss + actor(x).sum() + critic(x).sum()
opt_a.zero_grad()
loss.backward()
opt_a.step()
opt_c.zero_grad()
loss.backward()
opt_c.step()
"""
    found = _ad1(tmp_path, src)
    assert ("AD105", 20) in found and not any(code == "AD101" for code, _ in found)


def test_two_helper_backwards_in_a_row_outside_loops(tmp_path):
    body = """
    loss = actor(x).sum() + critic(x).sum()
    update_model(opt_a, loss)
    update_model(opt_c, loss)
"""
    # at module level, and in a function nothing in the file calls
    assert ("AD105", 8) in _ad1(tmp_path, SETUP + "x = torch.randn(2, 4)\n" + textwrap.dedent(body))
    assert ("AD105", 8) in _ad1(tmp_path, SETUP + "\n\ndef train_step(x):" + body)


def test_two_helper_backwards_of_their_own_losses_are_fine(tmp_path):
    src = SETUP + """

def train_step(x):
    update_model(opt_a, actor(x).sum())
    update_model(opt_c, critic(x).sum())
"""
    assert _ad1(tmp_path, src) == []


def test_a_training_function_called_twice_is_no_pair_of_helper_backwards(tmp_path):
    # pretrain, then finetune: each call builds its own losses on the model it is given
    src = """
import torch
import torch.nn as nn


def train(model, optimizer, data):
    for x in data:
        loss = model(x).sum()
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        optimizer.step()


def main():
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.randn(3, 2, 4)
    train(model, optimizer, data)
    train(model, optimizer, data[:2])
"""
    assert _ad1(tmp_path, src) == [("AD104", 10)]
    ctx = FileContext(cst.parse_module(src), str(tmp_path / "train.py"))
    assert "main" not in {scope.name for scope in ctx.analysis.scopes}


def test_two_helper_backwards_of_one_loss_get_their_function_walked(tmp_path):
    src = SETUP + """

def train_step(x):
    loss = actor(x).sum() + critic(x).sum()
    update_model(opt_a, loss)
    update_model(opt_c, loss)
"""
    ctx = FileContext(cst.parse_module(src), str(tmp_path / "train.py"))
    assert "train_step" in {scope.name for scope in ctx.analysis.scopes}
