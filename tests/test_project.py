"""Project-wide summaries: functions imported from the project's own files
(analysis/summaries.py, analysis/project.py), and the cache's dependencies."""
import os
import textwrap

from autodetach.analysis.summaries import summarize
from autodetach.engine import Options, check_source
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

def repackage_legacy(h):
    if type(h) == Variable:
        return Variable(h.data)
    else:
        return tuple(repackage_legacy(v) for v in h)
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
    assert s["repackage_legacy"].result == "cut"  # the 0.3 helper (DARTS' utils.py)
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
    findings, _, _ = check_source(text, path, all_rules(), Options())
    return [f for f in findings if f.code == "AD102"]


def test_absolute_import_resolves(tmp_path):
    found = _ad102(_project(tmp_path, "from losses import loss_fn", "loss_fn"))
    assert len(found) == 1 and found[0].fix == "safe"


def test_module_import_and_relative_import_resolve(tmp_path):
    assert len(_ad102(_project(tmp_path, "import losses", "losses.loss_fn"))) == 1
    assert len(_ad102(_project(tmp_path, "from .losses import loss_fn", "loss_fn", pkg=True))) == 1


def test_unresolved_or_opaque_stays_uncertain(tmp_path):
    # what is summed is not what is backwarded: nothing proves it carries a graph
    for imp, call in (("from elsewhere import loss_fn", "loss_fn"), ("from losses import opaque", "opaque")):
        path = _project(tmp_path, imp, call)
        with open(path) as fh:
            text = fh.read()
        text = text.replace("    loss.backward()\n", "    F.mse_loss(model(x), y).backward()\n")
        text = text.replace("from torch import nn\n", "from torch import nn\nimport torch.nn.functional as F\n")
        with open(path, "w") as fh:
            fh.write(text)
        assert _ad102(path) == []


def test_unresolved_but_backwarded_is_proven(tmp_path):
    # `loss.backward()` runs only on a tensor with a graph (analysis/backwarded.py)
    for imp, call in (("from elsewhere import loss_fn", "loss_fn"), ("from losses import opaque", "opaque")):
        found = _ad102(_project(tmp_path, imp, call))
        assert len(found) == 1 and found[0].line == 15  # `total += loss`


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


STAR_GAN = """
from common import *

G = nn.Linear(4, 4)
D = nn.Linear(4, 1)
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
for i in range(3):
    fake = G(torch.randn(8, 4))
    g_loss = -D(fake).mean()
    d_loss = D(fake.detach()).mean() - D(torch.randn(8, 4)).mean()
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
"""


def test_star_import_brings_torch(tmp_path):
    # `torch` and `nn` come from the project's star import: the optimizers
    # are seen, so the G loss built before D's step is reported.
    (tmp_path / "common.py").write_text("import torch\nimport torch.nn as nn\n")
    train = tmp_path / "train.py"
    train.write_text(STAR_GAN)
    findings, _, _ = check_source(STAR_GAN, str(train), all_rules(), Options())
    assert any(f.code == "AD108" and f.line == 16 for f in findings), [(f.code, f.line) for f in findings]


STEP_TRAINER = """
import torch.nn.functional as F

class StepTrainer:
    def __init__(self, net, opt):
        self.net, self.opt = net, opt

    def train_step(self, x, y):
        self.opt.zero_grad()
        loss = F.mse_loss(self.net(x), y)
        loss.backward()
        self.opt.step()
        return {ret}
"""

LOOP = """
import torch
from torch import nn
from step_trainer import StepTrainer

net = nn.Linear(4, 1)
trainer = StepTrainer(net, torch.optim.SGD(net.parameters(), lr=0.1))
total_loss = 0
for i in range(3):
    loss = trainer.train_step(torch.randn(8, 4), torch.randn(8, 1))
    total_loss += loss
print(total_loss)
"""


def test_imported_trainer_step(tmp_path):
    (tmp_path / "step_trainer.py").write_text(STEP_TRAINER.format(ret="loss"))
    train = tmp_path / "train.py"
    train.write_text(LOOP)
    found = _ad102(str(train))
    assert len(found) == 1 and found[0].fix == "unsafe" and "train_step" in found[0].message
    # the step returns a number: nothing kept
    (tmp_path / "step_trainer.py").write_text(STEP_TRAINER.format(ret="loss.item()"))
    os.utime(tmp_path / "step_trainer.py", ns=(1, 1))
    assert _ad102(str(train)) == []


STATEFUL = """
import torch
from torch import nn
from torch.nn import GRU

class Evolving(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.gru = GRU(d, d)
        self.w = None

    def reset(self):
        self.w = None

    def forward(self, x):
        _, self.w = self.gru(x, self.w)
        return x @ self.w

class Cut(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lstm = nn.LSTM(d, d)

    def forward(self, x):
        out, self.h = self.lstm(x, self.h)
        self.h = tuple(s.detach() for s in self.h)
        return out

class Memory(nn.Module):
    def forward(self, x, mems=None):
        out = self.proj(x)
        new = []
        for layer in self.layers:
            new.append(layer(out))
        return out.sum(), new, out.detach()
"""


def test_class_state_and_tuple_elements():
    s = summarize(STATEFUL)
    assert s["Evolving.forward"].state == (("w", ("reset",)),)
    assert s["Cut.forward"].state == ()  # detached in forward: not kept with its graph
    # appended values are followed (an unknown layer call), `.detach()` is cut
    assert s["Memory.forward"].elems == ("graph", "unknown", "cut")


def test_reexported_class_method_is_found(tmp_path):
    from autodetach.analysis.project import find

    pkg = tmp_path / "pkg" / "layers"
    pkg.mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("from .evolving import Evolving\n")
    (pkg / "evolving.py").write_text(STATEFUL)
    summary, path = find(str(pkg / "__init__.py"), "Evolving.forward")
    assert path == str(pkg / "evolving.py")
    assert summary.state[0][0] == "w"
    assert find(str(pkg / "__init__.py"), "Missing.forward") == (None, None)


def test_a_fix_run_sees_its_neighbours_as_they_were_read(tmp_path):
    # The run fixes utils.py (AD201) before it analyses the files that
    # import it: they must still see `cut` as the run found it, or the
    # order of the files would decide their fixes and the report (made on
    # the untouched tree) would not show them (docs/reliability.md).
    from autodetach.analysis.project import summaries_of
    from autodetach.runner import Settings, run_unordered

    utils = tmp_path / "utils.py"
    # an alias the summary does not read as Variable: `cut` is unknown until fixed
    utils.write_text("from torch.autograd import Variable as V\n\n\ndef cut(h):\n    return V(h.data)\n")
    (tmp_path / "train.py").write_text("from utils import cut\n")
    read = summaries_of(str(utils))["cut"]
    stream = run_unordered([str(utils), str(tmp_path / "train.py")],
                           Settings(codes=("AD201", "AD202"), fix=True, write=True))
    next(stream)
    assert "h.detach()" in utils.read_text()
    assert summaries_of(str(utils))["cut"] == read
    list(stream)
    assert summaries_of(str(utils))["cut"].result == "cut" != read.result


def test_the_originals_of_a_killed_run_are_removed_by_the_next(tmp_path, monkeypatch):
    import subprocess
    import sys
    import tempfile

    from autodetach.runner import Settings, run_unordered

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f"autodetach-originals-{dead.pid}-x"
    stale.mkdir()
    (stale / "kept").write_bytes(b"x = 1\n")
    live = tmp_path / f"autodetach-originals-{os.getpid()}-y"
    live.mkdir()
    (tmp_path / "a.py").write_text("from torch.autograd import Variable\nh = Variable(x.data)\n")
    list(run_unordered([str(tmp_path / "a.py")], Settings(codes=("AD201",), fix=True, write=True)))
    assert "x.detach()" in (tmp_path / "a.py").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py", live.name]
