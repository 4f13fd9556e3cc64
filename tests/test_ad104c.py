"""AD104 (session 35, ad104c): two causes of missed retains on real code.

1. A running total backwarded every few steps and then started again (`total.backward(
   retain_graph=True)`, then `total = 0` in the same block): the walk joins the arm that
   resets the total with the arm that skips the backward, so the next total seemed to hang
   from this graph (analysis.reset_totals). Meta-learning's minibatch of tasks, gradient
   accumulation over a summed loss.
2. A helper handed a model that only reads a setting of it (`w = model.n_window`, stored
   as a literal by the project's classes) ran the model as far as the summary knew, so data
   it prepared before the loop seemed to hang from the model's graph (analysis.plain_attributes;
   a parameter's own name in `def f(data, model)` is no use of the module either)."""
import subprocess
import sys
import textwrap

import pytest

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _ad104(src, tmp_path, name="train.py", extra=None):
    for other, text in (extra or {}).items():
        (tmp_path / other).write_text(textwrap.dedent(text))
    path = tmp_path / name
    path.write_text(textwrap.dedent(src))
    findings, _, _ = check_source(path.read_text(), str(path), all_rules(), Options())
    return [f for f in findings if f.code == "AD104"]


ACCUMULATE = """
import torch
from torch import nn

net = nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
total = 0
for step in range(8):
    total = total + net(torch.randn(2, 4)).pow(2).mean()
    if step % 4 == 3:
        total = total / 4
        opt.zero_grad()
        total.backward(retain_graph=True)
        opt.step()
        RESET
print(float(net.weight.sum()))
"""


def test_total_reset_after_its_backward_retains_for_nothing(tmp_path):
    found = _ad104(ACCUMULATE.replace("RESET", "total = 0"), tmp_path)
    assert [(f.line, f.fix) for f in found] == [(13, "safe")]


def test_total_reset_only_in_a_nested_if_keeps_the_retain(tmp_path):
    src = ACCUMULATE.replace("RESET", "if step > 4:\n            total = 0")
    assert _ad104(src, tmp_path) == []


def test_total_kept_under_another_name_keeps_the_retain(tmp_path):
    src = ACCUMULATE.replace("RESET", "kept = total\n        total = 0") \
        .replace("print(", "    if step % 4 == 0 and step:\n        (kept * 0.1).backward()\nprint(")
    assert _ad104(src, tmp_path) == []


def test_total_bound_from_another_value_keeps_the_retain(tmp_path):
    # `total = base` may hand the next total a value built before the backward
    src = ACCUMULATE.replace("RESET", "total = 0").replace("total = 0\nfor", "base = 0\ntotal = 0\nfor") \
        .replace("    total = total + net", "    total = base if step == 9 else total\n    total = total + net")
    assert _ad104(src, tmp_path) == []


TRAINER = """
import torch
from torch import nn


def task_loss(net, x, y, k):
    loss = 0
    for _ in range(k):
        loss = loss + nn.functional.mse_loss(net(x), y)
    return loss / k


class Trainer:
    def __init__(self, net):
        self.net = net
        self.opt = torch.optim.Adam(net.parameters(), lr=1e-3)

    def fit(self, tasks, per_batch):
        meta = 0
        for i, (x, y) in enumerate(tasks):
            meta = meta + task_loss(self.net, x, y, 2)
            if (i + 1) % per_batch == 0:
                self.opt.zero_grad()
                meta.backward(retain_graph=True)
                self.opt.step()
                meta = 0
"""


def test_trainer_method_with_a_helper_total_retains_for_nothing(tmp_path):
    found = _ad104(TRAINER, tmp_path)
    assert [f.line for f in found] == [24]


def test_trainer_total_backwarded_again_after_the_block_keeps_the_retain(tmp_path):
    # `i == 5` is true on one later iteration: that walk backwards `last`, this graph (first_iteration)
    src = TRAINER.replace("                meta = 0\n", "                last = meta\n                meta = 0\n"
                          "            if i == 5:\n                last.backward()\n")
    assert _ad104(src, tmp_path) == []


WINDOWS = """
import torch
from models import Net


def to_windows(data, model):
    windows = []
    w_size = model.n_window
    for i in range(len(data)):
        if i >= w_size:
            w = data[i - w_size:i]
        else:
            w = torch.cat([data[0].repeat(w_size - i, 1), data[0:i]])
        windows.append(USE)
    return torch.stack(windows)


def train(model, data, opt):
    for d in data:
        loss = model(d).mean()
        opt.zero_grad()
        loss.backward(retain_graph=True)
        opt.step()


model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
wins = to_windows(torch.randn(10, 4), model)
for e in range(3):
    train(model, wins, opt)
"""

MODELS = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.n_window = 3
        self.scale = nn.Parameter(torch.ones(1))
        self.fc = nn.Linear(4, 1)

    def forward(self, x):
        return self.fc(x)
"""


def test_helper_reading_a_literal_setting_of_the_model_runs_nothing(tmp_path):
    found = _ad104(WINDOWS.replace("USE", "w"), tmp_path, extra={"models.py": MODELS})
    assert [f.line for f in found] == [22]


def test_helper_reading_a_parameter_of_the_model_keeps_the_retain(tmp_path):
    # the windows hang from `model.scale`: every iteration walks that graph again
    assert _ad104(WINDOWS.replace("USE", "w * model.scale"), tmp_path, extra={"models.py": MODELS}) == []


def test_setting_computed_by_a_property_is_not_taken_for_a_number(tmp_path):
    prop = "    @property\n    def n_window(self):\n        return self.scale * 3\n\n"
    models = MODELS.replace("    def forward(", prop + "    def forward(")
    assert _ad104(WINDOWS.replace("USE", "w"), tmp_path, extra={"models.py": models}) == []


def test_setting_stored_from_an_argument_is_not_taken_for_a_number(tmp_path):
    models = MODELS.replace("def __init__(self):", "def __init__(self, n=3):").replace("self.n_window = 3",
                                                                                      "self.n_window = n")
    # read as a value (`w * model.n_window`), what the argument holds may carry a graph into the windows
    assert _ad104(WINDOWS.replace("USE", "w * model.n_window"), tmp_path, extra={"models.py": models}) == []
    # recall74: read only as slice bounds, counts and in a test, it brings no graph whatever it holds
    found = _ad104(WINDOWS.replace("USE", "w"), tmp_path, extra={"models.py": models})
    assert [f.line for f in found] == [22]


BLIND = """
import torch
from torch import nn

trunk = nn.Linear(4, 4)
head = nn.Linear(4, 1)
opt = torch.optim.SGD([*trunk.parameters(), *head.parameters()], lr=0.1)
for i, x in enumerate(torch.randn(8, 2, 4)):
    h = trunk(x)
    opt.zero_grad()
    head(h).mean().backward(retain_graph=True)
    if TEST:
        head(h).pow(2).mean().backward()
    opt.step()
"""


def test_a_test_for_one_later_index_runs_on_some_later_iteration(tmp_path):
    # `i == 5` is false on the first iteration and on most later ones, true on one: the later
    # walk takes both arms (first_iteration), so the second backward on the trunk is seen
    assert _ad104(BLIND.replace("TEST", "i == 5"), tmp_path) == []
    assert _ad104(BLIND.replace("TEST", "i != 3"), tmp_path) == []
    # `i == 0` runs on the first iteration only: there the second backward frees the graph
    assert _ad104(BLIND.replace("TEST", "i > 0"), tmp_path) == []


@pytest.mark.slow
def test_accumulate_runs_the_same_without_the_retain(tmp_path):
    src = textwrap.dedent(ACCUMULATE.replace("RESET", "total = 0"))
    outs = []
    for text in (src, src.replace("retain_graph=True", "")):
        path = tmp_path / "run.py"
        path.write_text("import torch\ntorch.manual_seed(0)\n" + text)
        outs.append(subprocess.run([sys.executable, str(path)], capture_output=True, text=True, check=True).stdout)
    assert outs[0] == outs[1]


HELPER = """
import torch


class Helper:
    @staticmethod
    def repackage_hidden(h):
        if isinstance(h, torch.Tensor):
            return BODY
        return tuple(Helper.repackage_hidden(v) for v in h)
"""

LSTM = """
import torch
from torch import nn


def train_poison(helper, model, opt, batches):
    hidden = None
    for x, y in batches:
        opt.zero_grad()
        if hidden is not None:
            hidden = helper.repackage_hidden(hidden)
        out, hidden = model(x, hidden)
        loss = nn.functional.mse_loss(out[:, -1], y)
        loss.backward(retain_graph=True)
        opt.step()
    return loss


def main(helper, model, opt, batches):
    for epoch in range(3):
        loss = train_poison(helper, model, opt, batches)
        if loss < 1e-4:
            break
"""


def test_state_cut_by_a_helper_of_unknown_class_is_an_inferred_cut(tmp_path):
    found = _ad104(LSTM, tmp_path, extra={"helper.py": HELPER.replace("BODY", "h.detach()")})
    assert [(f.line, f.fix) for f in found] == [(14, "unsafe")]
    assert "the class of `helper` is not known" in found[0].message
    # the caller only compares the returned loss with a number: nothing backwards it
    assert "drop the result" in found[0].message


def test_helper_method_that_keeps_the_state_keeps_the_retain(tmp_path):
    assert _ad104(LSTM, tmp_path, extra={"helper.py": HELPER.replace("BODY", "h")}) == []


def test_two_classes_one_keeping_the_state_keeps_the_retain(tmp_path):
    other = HELPER.replace("class Helper", "class Keeper").replace("Helper.", "Keeper.").replace("BODY", "h * 1")
    extra = {"helper.py": HELPER.replace("BODY", "h.detach()"), "keeper.py": other}
    assert _ad104(LSTM, tmp_path, extra=extra) == []


def test_a_closure_backwarding_the_returned_loss_keeps_it(tmp_path):
    src = LSTM.replace("        if loss < 1e-4:\n            break\n",
                       "        def again():\n            loss.backward()\n        again()\n")
    assert _ad104(src, tmp_path, extra={"helper.py": HELPER.replace("BODY", "h.detach()")}) == []
