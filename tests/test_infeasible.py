"""Conflicts joined from paths that cannot run together (analysis/infeasible.py), and
the rebind of a running average through `register_buffer` (buffer_updates.re_register)."""
import textwrap

import libcst as cst

from autodetach.analysis.decide import Problem
from autodetach.context import FileContext
from autodetach.engine import Options, check_source
from autodetach.registry import by_code


def _kinds(src):
    src = textwrap.dedent(src)
    ctx = FileContext(cst.parse_module(src), "case.py", src)
    return [d.kind for d in ctx.analysis.diagnoses]


def _codes(src, code):
    found, _, _ = check_source(textwrap.dedent(src), "case.py", [by_code()[code]], Options())
    return [f for f in found if f.code == code]


SEPARATE = """
def train(c, model, criterion, optimizer, optimizer_st, loader):
    for x, y, stop in loader:
        out, stop_out = model(x)
        stop_loss = criterion(stop_out, stop)
        loss = criterion(out, y)
        if {first}:
            loss += stop_loss
        loss.backward()
        optimizer.step()
        if {second}:
            stop_loss.backward()
            optimizer_st.step()
"""


def test_contradicting_arms_share_no_graph():
    src = SEPARATE.format(first="not c.separate_stopnet and c.stopnet", second="c.separate_stopnet")
    assert Problem.SHARED_FREED not in _kinds(src)


def test_arms_that_can_both_run_still_conflict():
    src = SEPARATE.format(first="c.stopnet", second="c.separate_stopnet")
    assert Problem.SHARED_FREED in _kinds(src)


def test_rebound_flag_is_not_fixed():
    src = SEPARATE.format(first="not c.separate_stopnet", second="c.separate_stopnet").replace(
        "        loss.backward()\n", "        loss.backward()\n        c = refresh(c)\n")
    assert Problem.SHARED_FREED in _kinds(src)


CONFIG_ARMS = """
def train(args, dis, opt, batches):
    for step, (real, fake) in enumerate(batches):
        if {test}:
            d_loss = (dis(real) - dis(fake)).mean()
        elif args.loss == "lsgan":
            d_loss = 0
            for score in (dis(real), dis(fake)):
                d_loss += (score ** 2).mean()
        elif args.loss == "standard":
            pass
        d_loss = d_loss / float(args.accumulate)
        d_loss.backward()
        opt.step()
"""


def test_name_unbound_before_loop_under_fixed_tests():
    assert Problem.CROSS_ITERATION not in _kinds(CONFIG_ARMS.format(test='args.loss == "hinge"'))


def test_name_unbound_before_loop_under_varying_test():
    assert Problem.CROSS_ITERATION in _kinds(CONFIG_ARMS.format(test="step % 2 == 0"))


def test_name_bound_before_loop_keeps_the_conflict():
    src = CONFIG_ARMS.format(test='args.loss == "hinge"').replace(
        "    for step,", "    d_loss = dis(batches[0][0]).mean()\n    for step,")
    assert Problem.CROSS_ITERATION in _kinds(src)


EMA = """
import torch
import torch.nn as nn


class Stats(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(n))
        self.register_buffer("mean", None)

    def update_with_decay(self, name, new_value, decay):
        old_value = getattr(self, name)
        if old_value is None:
            self.register_buffer(name, new_value.detach())
            return
        value = old_value * decay + {new} * (1 - decay)
        self.register_buffer(name, value)

    def forward(self, x):
        {guard}self.update_with_decay("mean", x.mean(0), 0.9)
        return self.gain * (x - self.mean)
"""


def test_reregistered_running_average_keeps_graph():
    found = _codes(EMA.format(new="new_value", guard=""), "AD101")
    assert len(found) == 1 and "getattr(self, name)" in found[0].message


def test_reregistered_from_detached_or_under_no_grad():
    assert _codes(EMA.format(new="new_value.detach()", guard=""), "AD101") == []
    assert _codes(EMA.format(new="new_value", guard="with torch.no_grad():\n            "), "AD101") == []


def test_reregistered_latest_value_only():
    src = EMA.format(new="new_value", guard="").replace("old_value * decay + new_value * (1 - decay)",
                                                          "new_value * decay")
    assert _codes(src, "AD101") == []
