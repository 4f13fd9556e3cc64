"""Project-wide summaries: functions imported from the project's own files
(analysis/summaries.py, analysis/project.py), and the cache's dependencies."""
import os
import textwrap

from autodetach.analysis.summaries import summarize
from autodetach.engine import Options, check_text
from autodetach.registry import all_rules

LOSSES = """
import torch
import torch.nn.functional as F

def loss_fn(out, y):
    return F.mse_loss(out, y)

def parts(out, y):
    a = F.mse_loss(out, y)
    b = F.l1_loss(out, y)
    return a + b, a, b

def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)

def step(loss, opt):
    loss.backward()
    opt.step()

def opaque(x):
    return some_library(x)
"""

TRAIN = """
import torch
from torch import nn
{imp}

model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
total = 0
for i in range(3):
    x, y = torch.randn(8, 4), torch.randn(8, 2)
    opt.zero_grad()
    loss = {call}(model(x), y)
    loss.backward()
    opt.step()
    total += loss
print(total)
"""


def test_summaries():
    s = summarize(textwrap.dedent(LOSSES))
    assert s["loss_fn"].result == "graph" and s["loss_fn"].arity == 0
    assert s["parts"].result == "graph" and s["parts"].arity == 3
    assert s["repackage_hidden"].result == "cut"
    assert s["step"].events
    assert s["opaque"].result == "unknown"
    assert summarize("def broken(:\n") == {}


def _project(tmp_path, imp, call, pkg=False):
    base = tmp_path / "pkg" if pkg else tmp_path
    base.mkdir(exist_ok=True)
    if pkg:
        (base / "__init__.py").write_text("")
    (base / "losses.py").write_text(textwrap.dedent(LOSSES))
    train = base / "train.py"
    train.write_text(TRAIN.format(imp=imp, call=call))
    return str(train)


def _ad102(path):
    with open(path) as fh:
        text = fh.read()
    findings, _, _ = check_text(text, path, all_rules(), Options())
    return [f for f in findings if f.code == "AD102"]


def test_absolute_import_resolves(tmp_path):
    found = _ad102(_project(tmp_path, "from losses import loss_fn", "loss_fn"))
    assert len(found) == 1 and found[0].fix == "safe"


def test_module_import_and_relative_import_resolve(tmp_path):
    assert len(_ad102(_project(tmp_path, "import losses", "losses.loss_fn"))) == 1
    assert len(_ad102(_project(tmp_path, "from .losses import loss_fn", "loss_fn", pkg=True))) == 1


def test_unresolved_or_opaque_stays_uncertain(tmp_path):
    assert _ad102(_project(tmp_path, "from elsewhere import loss_fn", "loss_fn")) == []
    assert _ad102(_project(tmp_path, "from losses import opaque", "opaque")) == []


def test_cached_result_is_dropped_when_an_imported_file_changes(tmp_path):
    from autodetach.cache import Cache
    from autodetach.engine import process_bytes

    path = _project(tmp_path, "from losses import loss_fn", "loss_fn")
    rules = [r for r in all_rules() if r.code == "AD102"]
    cache = Cache(str(tmp_path / "cache"), ["AD102"], False, False, False, False)
    data = open(path, "rb").read()
    key = cache.key(data, path, frozenset())
    assert cache.get(key) is None
    res = process_bytes(data, path, rules, Options())
    assert len(res.findings) == 1
    cache.put(key, res)
    assert cache.get(key) is not None and len(cache.get(key).findings) == 1
    losses = tmp_path / "losses.py"
    losses.write_text(textwrap.dedent(LOSSES).replace("return F.mse_loss(out, y)",
                                                       "return F.mse_loss(out, y).detach()"))
    os.utime(losses, ns=(1, 1))
    assert cache.get(key) is None  # losses.py changed: the result may have too


def test_summary_of_self_referencing_assignments_is_linear():
    body = "\n".join(f"    y = y + torch.relu(y) * {i}" for i in range(60))
    src = f"import torch\ndef f(x):\n    y = x\n{body}\n    return y\n"
    assert summarize(src)["f"].result == "graph"  # exponential before memoising


def test_alias_of_an_imported_loss_and_layers_built_in_the_helper(tmp_path):
    (tmp_path / "loss.py").write_text(textwrap.dedent("""
        import torch.nn as nn

        def my_loss(pred, y):
            mse = nn.MSELoss()
            m = mse(pred, y)
            return m * 2, m
    """))
    train = tmp_path / "train.py"
    train.write_text(TRAIN.format(imp="from loss import my_loss\nloss_fn = my_loss",
                                  call="loss_fn").replace("loss = loss_fn(model(x), y)",
                                                          "loss, m = loss_fn(model(x), y)"))
    found = _ad102(str(train))
    assert len(found) == 1 and found[0].fix == "safe"
