"""`stat_col["loss"] = loss` where `stat_col` is an object of a project class
whose `__setitem__` adds the value into `self` state (mi-prometheus'
StatisticsCollector appends it to a list): the subscript store is a method
call that keeps what it is given, as `meter.update(loss)` is (flow's
`_setitem_store`)."""
import textwrap

import pytest

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

COLLECTOR = """
import torch


class Collector:
    def __init__(self):
        self.lists = {{}}

    def __setitem__(self, key, value):
        {body}
"""

TRAIN = """
import torch.nn.functional as F


def train(model, optimizer, loader):
    stats = Collector()
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        {store}
    return stats
"""

KEEPS = "self.lists.setdefault(key, []).append(value)"


def _found(tmp_path, body=KEEPS, store='stats["loss"] = loss', imported=False):
    collector = textwrap.dedent(COLLECTOR).format(body=body)
    train = textwrap.dedent(TRAIN).format(store=store)
    if imported:
        (tmp_path / "collector.py").write_text(collector)
        src = "from collector import Collector\n" + train
    else:
        src = collector + train
    (tmp_path / "train.py").write_text(src)
    found, _, _ = check_source(src, str(tmp_path / "train.py"), all_rules(), Options())
    return [f for f in found if f.code.startswith("AD1")]


@pytest.mark.parametrize("body", [
    KEEPS,
    "self.lists[key].append(value)",
    "self.lists[key] = self.lists.get(key, 0) + value",
])
@pytest.mark.parametrize("imported", [False, True])
def test_a_collector_that_keeps_the_value_is_reported(tmp_path, body, imported):
    found = _found(tmp_path, body=body, imported=imported)
    assert [f.code for f in found] == ["AD102"]
    assert "`Collector.__setitem__` adds the value stored" in found[0].message
    assert "inferred" in found[0].message
    assert found[0].fix == "unsafe"


@pytest.mark.parametrize("body", [
    "self.lists.setdefault(key, []).append(value.item())",
    "self.lists.setdefault(key, []).append(float(value))",
    "self.lists.setdefault(key, []).append(value.detach().cpu().numpy())",
    "self.lists[key] = value",  # the latest value only: replaced each step
])
def test_a_collector_that_cuts_or_replaces_is_left_alone(tmp_path, body):
    assert _found(tmp_path, body=body) == []


@pytest.mark.parametrize("store", [
    'stats["loss"] = loss.item()',
    'stats["loss"] = loss.detach()',
    'stats["loss"] = x.size(0)',
])
def test_a_value_without_graph_is_left_alone(tmp_path, store):
    assert _found(tmp_path, store=store) == []


def test_a_plain_dict_is_not_a_collector(tmp_path):
    src = textwrap.dedent(TRAIN).format(store='stats["loss"] = loss').replace("stats = Collector()", "stats = {}")
    found, _, _ = check_source(src, str(tmp_path / "train.py"), all_rules(), Options())
    assert [f.code for f in found if f.code.startswith("AD1")] == []


# A meter handed to a step helper walked at its call (flow.inline's `passed`).
HELPER = """
import torch
import torch.nn.functional as F


class Meter:
    def __init__(self):
        self.sum = 0.0

    def update(self, val):
        self.sum += val

    def __setitem__(self, key, val):
        self.sum += val


def step(model, optimizer, x, y, meter):
    {rebind}
    optimizer.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    {store}


def train(model, optimizer, loader):
    losses = Meter()
    for x, y in loader:
        {call}
    return losses
"""


def _helper(store="meter.update(loss)", call="step(model, optimizer, x, y, losses)", rebind="pass"):
    src = textwrap.dedent(HELPER).format(store=store, call=call, rebind=rebind)
    found, _, _ = check_source(src, "train.py", all_rules(), Options())
    return [(f.code, f.line, f.fix) for f in found if f.code.startswith("AD1")]


@pytest.mark.parametrize("store", ["meter.update(loss)", 'meter["loss"] = loss'])
def test_a_meter_given_to_a_step_helper_is_reported(store):
    assert _helper(store=store) == [("AD102", 23, "unsafe")]


@pytest.mark.parametrize("store, call, rebind", [
    ("meter.update(loss.item())", "step(model, optimizer, x, y, losses)", "pass"),
    ("meter.update(loss)", "step(model, optimizer, x, y, Meter())", "pass"),  # a new meter each step
    ("meter.update(loss)", "step(model, optimizer, x, y, losses)", "meter = Meter()"),  # rebound inside
])
def test_no_report(store, call, rebind):
    assert _helper(store=store, call=call, rebind=rebind) == []


# A helper with no backward, given the caller's collector (analysis.passed_meters).
PLAIN = """
import torch
import torch.nn.functional as F


class Collector:
    def __init__(self):
        self.lists = {{}}

    def __setitem__(self, key, value):
        self.lists.setdefault(key, []).append(value)


def collect(model, x, y, stat_col):
    loss = F.mse_loss(model(x), y)
    {store}
    return loss


def train(loader):
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    stats = Collector()
    for x, y in loader:
        optimizer.zero_grad()
        {call}
        loss.backward()
        optimizer.step()
    return stats
"""


def _plain(store='stat_col["loss"] = loss', call="loss = collect(model, x, y, stats)"):
    src = textwrap.dedent(PLAIN).format(store=store, call=call)
    found, _, _ = check_source(src, "train.py", all_rules(), Options())
    return [(f.code, f.line, f.fix) for f in found if f.code.startswith("AD1")]


def test_a_collector_given_to_a_plain_helper_is_reported():
    assert _plain() == [("AD102", 16, "unsafe")]


@pytest.mark.parametrize("store, call", [
    ('stat_col["loss"] = loss.item()', "loss = collect(model, x, y, stats)"),
    ('stat_col["loss"] = loss', "loss = collect(model, x, y, {})"),  # a plain dict: replaced each step
    ('stat_col["loss"] = loss', "loss = collect(model, x, y, Collector())"),  # a new collector each step
])
def test_a_plain_helper_no_report(store, call):
    assert _plain(store=store, call=call) == []
