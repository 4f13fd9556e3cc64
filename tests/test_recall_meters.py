"""Meters, loggers and networks in the shapes the fresh batches showed:
networks unpacked from a list argument, a logger whose `store(**kwargs)`
keeps what it is given, a meter class made through its module
(`utils.Averager()`), and the meter files' callers recorded as read."""
import os
import textwrap

import libcst as cst

from autodetach.analysis.names import build_names
from autodetach.analysis.summaries import summarize
from autodetach.engine import Options, check_source
from autodetach.imports import ImportTable
from autodetach.registry import all_rules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _names(src: str):
    module = cst.parse_module(textwrap.dedent(src))
    return build_names(module, ImportTable.from_module(module))


def _found(src: str, path: str = "train.py"):
    rules = [r for r in all_rules() if r.code in ("AD101", "AD102")]
    found, _, _ = check_source(textwrap.dedent(src), path, rules, Options())
    return [(f.code, f.line) for f in found]


UNPACKED = """
import torch

def train(models, optimizers, loader):
    [encoder, head] = models
    opt, = optimizers
    total = 0
    for x, y in loader:
        if len(x) == 8:
            out = head(encoder(x))
            err = (out - y).pow(2).mean()
            opt.zero_grad()
            err.backward()
            opt.step()
            total += err
    return total
"""


def test_names_unpacked_from_an_argument_get_roles_from_their_use():
    table = _names(UNPACKED)
    assert table.modules.get("encoder") == "param" and table.modules.get("head") == "param"
    assert "opt" in table.optimizers
    assert "unpacked from the argument `models`" in table.inferred["encoder"]


def test_a_returned_sum_whose_graph_a_backward_freed_in_a_branch_is_reported():
    # the caller cannot backward `total`: `err.backward()` freed each graph it holds
    assert _found(UNPACKED) == [("AD102", 15)]
    # without a backward here the caller may still backward the sum: left alone
    assert _found(UNPACKED.replace("err.backward()", "pass")) == []


def test_kwargs_and_varargs_kept_by_a_method_are_accumulated_arguments():
    table = summarize(textwrap.dedent("""
        class Logger:
            def store(self, **kwargs):
                for k, v in kwargs.items():
                    if k not in self.d:
                        self.d[k] = []
                    self.d[k].append(v)

            def push(self, *vals):
                for v in vals:
                    self.items.append(v)

            def note(self, **kwargs):
                for k, v in kwargs.items():
                    self.d[k] = float(v)
    """))
    assert [a[0] for a in table["Logger.store"].accum] == ["**"]
    assert [a[0] for a in table["Logger.push"].accum] == ["*"]
    assert table["Logger.note"].accum == ()


METER = """
import torch

class Meter:
    def __init__(self):
        self.sum = 0

    def update(self, val, n=1):
        self.sum += val * n

def train(model, loader, optimizer):
    meter = Meter()
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        meter.update({arg})
"""


def test_a_meter_given_the_loss_by_keyword():
    assert _found(METER.format(arg="val=loss, n=2")) == [("AD102", 18)]
    assert _found(METER.format(arg="n=2, val=loss.item()")) == []
    assert _found(METER.format(arg="loss")) == [("AD102", 18)]


def test_a_class_made_through_an_imported_module_is_an_object_of_it():
    table = _names("""
        import utils
        import torch.nn as nn
        from pkg import logx
        avg = utils.Averager()
        log = logx.EpochLogger()
        layer = nn.Linear(2, 2)
        low = utils.averager()
        other = unknown.Thing()
    """)
    assert set(table.foreign_instances) >= {"avg", "log"}
    assert not {"layer", "low", "other"} & set(table.foreign_instances)


def test_module_made_meter_in_another_file(tmp_path):
    (tmp_path / "utils.py").write_text(textwrap.dedent("""
        class Averager:
            def __init__(self):
                self.v = 0

            def add(self, v):
                self.v += v
    """))
    src = """
        import torch
        import utils

        def train(model, loader, optimizer):
            avg = utils.Averager()
            for x, y in loader:
                loss = (model(x) - y).pow(2).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                avg.add(loss)
    """
    assert _found(src, str(tmp_path / "train.py")) == [("AD102", 12)]


def test_remote_meter_callers_are_recorded_as_dependencies():
    """analysis.remote_meters reads the files that call the meter through
    project.text_of, so a cached result follows the callers' edits."""
    from autodetach.analysis.project import take_deps
    from autodetach.engine import process_bytes

    case = os.path.join(ROOT, "corpus", "AD102", "remote_meter")
    path = os.path.join(case, "train.py")
    take_deps()
    with open(path, "rb") as fh:
        result = process_bytes(fh.read(), path, all_rules(), Options())
    assert [f.code for f in result.findings] == ["AD102"]
    assert os.path.realpath(os.path.join(case, "loop.py")) in take_deps()


INPLACE = """
import torch

def train(model, loader, optimizer):
    running = torch.zeros(1)
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        running.add_({arg})
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return running
"""


def test_an_in_place_add_into_a_tensor_kept_across_iterations():
    assert _found(INPLACE.format(arg="loss")) == [("AD102", 8)]
    assert _found(INPLACE.format(arg="loss.detach()")) == []
    assert _found(INPLACE.format(arg="loss.item()")) == []
    # a tensor made again in every iteration keeps nothing
    fresh = INPLACE.format(arg="loss").replace("        running.add_", "        running = torch.zeros(1)\n"
                                                "        running.add_")
    assert _found(fresh) == []


def test_a_meter_that_adds_in_place_accumulates_its_argument():
    table = summarize(textwrap.dedent("""
        class Meter:
            def update(self, val, n=1):
                self.sum.add_(val * n)

            def tally(self, val):
                self.sum.add_(float(val))
    """))
    assert [a[0] for a in table["Meter.update"].accum][:1] == [0]  # as `self.sum += val * n`
    assert table["Meter.tally"].accum == ()
