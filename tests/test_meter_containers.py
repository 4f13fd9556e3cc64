"""Dicts and lists of meters fed loss tensors (lepard: `stats_meter[key] =
AverageMeter()`, then `stats_meter[key].update(value)` over the loss dict)."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

METERS = """
class AverageMeter:
    def __init__(self):
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n
"""

TRAIN = """
import collections

import torch
from meters import AverageMeter


def train(model, loader, optimizer, keys):
    {build}
    for x, y in loader:
        out = model(x)
        losses = {{"mse": (out - y).pow(2).mean(), "l1": (out - y).abs().mean()}}
        optimizer.zero_grad()
        (losses["mse"] + losses["l1"]).backward()
        optimizer.step()
        for key, value in losses.items():
            meters[key].update({value})
    return meters
"""


def _found(tmp_path, build, value="value"):
    (tmp_path / "meters.py").write_text(textwrap.dedent(METERS))
    src = textwrap.dedent(TRAIN).format(build=build, value=value)
    (tmp_path / "train.py").write_text(src)
    rules = [r for r in all_rules() if r.code in ("AD101", "AD102")]
    found, _, _ = check_source(src, str(tmp_path / "train.py"), rules, Options())
    return [(f.code, f.line, f.fix) for f in found]


def test_meters_of_a_dict_built_by_a_comprehension(tmp_path):
    assert _found(tmp_path, "meters = {k: AverageMeter() for k in keys}") == [("AD102", 17, "unsafe")]
    assert _found(tmp_path, "meters = {k: AverageMeter() for k in keys}", "value.item()") == []


def test_meters_of_a_defaultdict_and_of_a_list(tmp_path):
    assert _found(tmp_path, "meters = collections.defaultdict(AverageMeter)") == [("AD102", 17, "unsafe")]
    assert _found(tmp_path, "meters = [AverageMeter() for _ in range(2)]") == [("AD102", 17, "unsafe")]


def test_a_dict_of_other_objects_is_left_alone(tmp_path):
    # `dict` entries with an `update` method of no project class: not meters
    assert _found(tmp_path, "meters = {k: dict() for k in keys}") == []
    assert _found(tmp_path, "meters = {k: set() for k in keys}") == []
