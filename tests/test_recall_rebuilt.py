"""Shapes of fresh-2026-11-28 and fresh-2026-11-24: a meter that writes its
average out in full (`avg = avg * n + v`), the repository's root that is the
package it imports by name (`from TTS.utils.generic_utils import ...`), a model
from a project factory wrapped in DistributedDataParallel, and a dict of
totals rebuilt by a comprehension."""
import ast
import textwrap

from autodetach.analysis.project import module_file_up
from autodetach.analysis.summaries import _rebuilt
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _found(src: str, path: str = "train.py", codes=("AD101", "AD102")):
    rules = [r for r in all_rules() if r.code in codes]
    found, _, _ = check_source(textwrap.dedent(src), path, rules, Options())
    return [(f.code, f.line) for f in found]


def _write(root, files: dict):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _assign(src: str):
    return ast.parse(textwrap.dedent(src)).body[0]


def test_a_store_that_reads_itself_is_a_running_sum():
    assert _rebuilt(_assign("self.avg[k] = self.avg[k] * self.n[k] + value"))
    assert _rebuilt(_assign("self.ema = 0.99 * self.ema + 0.01 * value"))
    assert not _rebuilt(_assign("self.last = value + 1"))  # not rebuilt from itself
    assert not _rebuilt(_assign("self.avg = self.sum / self.count"))  # a quotient, not a sum
    assert not _rebuilt(_assign("total = total + value"))  # not `self` state


METER = """
class KeepAverage:
    def __init__(self):
        self.avg_values = {}
        self.iters = {}

    def update_value(self, name, value):
        self.avg_values[name] = self.avg_values[name] * self.iters[name] + value
        self.iters[name] += 1
        self.avg_values[name] /= self.iters[name]

    def __getitem__(self, name):
        return self.avg_values[name]
"""

TRAIN = """
import torch
from {pkg}.utils.meters import KeepAverage

def train(model, loader, optimizer):
    keep_avg = KeepAverage()
    for x, y in loader:
        out = model(x)
        loss = (out - y).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        keep_avg.update_value("loss", {value})
    return keep_avg["loss"]

def main(model, loader, optimizer, epochs):
    best = float("inf")
    for epoch in range(epochs):
        best = min(best, train(model, loader, optimizer))
    return best
"""


def test_a_meter_of_the_package_the_checkout_is(tmp_path):
    # the checkout's directory is not named like the package it imports itself as
    root = tmp_path / "checkout"
    _write(root, {"__init__.py": "", "utils/__init__.py": "", "utils/meters.py": METER})
    assert module_file_up(str(root), ["TTS", "utils", "meters"]) == str(root / "utils" / "meters.py")
    assert module_file_up(str(root), ["utils", "meters"]) == str(root / "utils" / "meters.py")
    assert module_file_up(str(tmp_path), ["TTS", "utils", "meters"]) is None  # not inside a package
    train = root / "train.py"
    train.write_text("")
    # reported once, at the update: `best` reads the average back, the same graph
    assert _found(TRAIN.format(pkg="TTS", value="loss"), str(train)) == [("AD102", 13)]
    assert _found(TRAIN.format(pkg="TTS", value="loss.item()"), str(train)) == []


def test_outside_a_package_the_first_name_is_not_dropped(tmp_path):
    root = tmp_path / "checkout"
    _write(root, {"utils/__init__.py": "", "utils/meters.py": METER})  # no __init__.py at the root
    (root / "train.py").write_text("")
    assert _found(TRAIN.format(pkg="TTS", value="loss"), str(root / "train.py")) == []


MODELS = """
import torch.nn as nn

class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 1)

    def forward(self, x):
        out = self.body(x)
        return out, out.mean(1)

def build_model(args):
    return Counter()

def build_other(args):
    return make_anything(args)
"""

DDP = """
import torch
from torch.nn.parallel import DistributedDataParallel
from models import {factory}

def main(args, loader):
    model = DistributedDataParallel({factory}(args).to(args.device), device_ids=[0])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train_ae = torch.tensor(0.0)
    for x, y in loader:
        out, aux = model(x)
        loss = (out - y).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        train_ae += torch.abs(out - y).sum()
    return train_ae
"""


def test_a_wrapped_model_from_a_project_factory_is_seen(tmp_path):
    train = str(tmp_path / "train.py")
    _write(tmp_path, {"models.py": MODELS, "train.py": DDP.format(factory="build_model")})
    # a running absolute error of the prediction, kept for the log: AD102, like a loss total
    assert _found(DDP.format(factory="build_model"), train) == [("AD102", 16)]
    # a factory whose class is not shown keeps the wrapped module unseen
    _write(tmp_path, {"train.py": DDP.format(factory="build_other")})
    assert _found(DDP.format(factory="build_other"), train) == []


DICT_TOTALS = """
import torch
import torch.nn.functional as F

def train(model, loader, optimizer):
    totals = {"mse": 0.0, "l1": 0.0}
    for x, y in loader:
        out = model(x)
        losses = {"mse": F.mse_loss(out, y), "l1": F.l1_loss(out, y)}
        optimizer.zero_grad()
        (losses["mse"] + losses["l1"]).backward()
        optimizer.step()
        totals = {k: totals[k] + losses[k]%s for k in totals}
    return totals
"""


def test_a_dict_of_totals_rebuilt_by_a_comprehension():
    assert _found(DICT_TOTALS % "") == [("AD101", 13)]
    assert _found(DICT_TOTALS % ".item()") == []
    assert _found(DICT_TOTALS % ".detach()") == []
