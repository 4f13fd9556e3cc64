"""Issue 8 (AD102 recall): a function that appends its backwarded loss, outside
its loops, to a list handed in as an argument (analysis/step_accumulators.py)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _found(src: str):
    rules = [r for r in all_rules() if r.code == "AD102"]
    found, _, _ = check_source(textwrap.dedent(src), "train.py", rules, Options())
    return [(f.line, f.fix, f.message) for f in found]


EPOCH = """
import torch
from torch import nn


def train(model, loader, optimizer, train_losses, train_accuracy):
    correct = 0
    for x, y in loader:
        optimizer.zero_grad()
        out = model(x)
        loss = nn.functional.cross_entropy(out, y)
        loss.backward()
        optimizer.step()
        correct += out.argmax(1).eq(y).sum().item()
    {append}
    train_accuracy.append(correct)
"""


def test_last_loss_appended_to_an_argument_list_is_reported_unsafe():
    found = _found(EPOCH.format(append="train_losses.append(loss)"))
    assert [(line, fix) for line, fix, _ in found] == [(15, "unsafe")]
    msg = found[0][2]
    assert "reached through the argument `train_losses`" in msg
    assert "inferred: the caller hands the same list to every call" in msg


def test_dict_held_list_of_an_argument_and_a_step_without_loop():
    found = _found(EPOCH.format(append='history["loss"].append(loss)').replace(
        "train_losses", "history"))
    assert [line for line, _, _ in found] == [15]
    found = _found("""
def step(model, x, opt, losses):
    loss = model(x).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss * 2)
""")
    assert [(line, fix) for line, fix, _ in found] == [(7, "unsafe")]


def test_numbers_cuts_locals_tuples_retained_and_no_grad_are_left_alone():
    for append in ("train_losses.append(loss.item())", "train_losses.append(loss.detach())",
                   "train_losses.append(float(loss))", "train_losses.append((loss, correct))",
                   "self.losses.append(loss)"):
        assert _found(EPOCH.format(append=append).replace("def train(", "def train(self, ")) == [], append
    assert _found(EPOCH.format(append="kept = []\n    kept.append(loss)")) == []
    assert _found("""
import torch

def step(model, x, kept):
    loss = model(x).mean()
    loss.backward(retain_graph=True)
    kept.append(loss)
""") == []
    assert _found("""
import torch

def step(model, x, kept):
    loss = model(x).mean()
    loss.backward()
    with torch.no_grad():
        kept.append(loss)
""") == []
    assert _found("""
def forward_only(model, x, kept):
    loss = model(x).mean()
    kept.append(loss)
""") == []


def test_in_loop_append_to_an_argument_is_reported_once():
    found = _found("""
from torch import nn

def train(model, loader, optimizer, train_losses):
    for x, y in loader:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        train_losses.append(loss)
""")
    assert [line for line, _, _ in found] == [10]


def test_a_new_list_at_every_call_of_this_file_is_left_alone():
    step = """
def step(model, x, opt, kept):
    loss = model(x).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    kept.append(loss)
"""
    assert _found(step + """

def main(model, xs, opt):
    for x in xs:
        kept = []
        step(model, x, opt, kept)
        print(len(kept))
    step(model, xs[0], opt, kept=[])
""") == []
    found = _found(step + """

def main(model, xs, opt):
    kept = []
    for x in xs:
        step(model, x, opt, kept)
    print(len(kept))
""")
    assert [line for line, _, _ in found] == [7]
