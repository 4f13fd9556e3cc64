"""Audit 51, AD102: safe fixes that rested on what a method of an object whose class was not read
returns (a float from `.item()`), and on `obj.add(x)` of an object that is no container we know."""
import json
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CRIT = """
import torch


class PartCriterion:
    def __init__(self):
        self.acc = 0

    def reset(self):
        self.acc = 0

    def eval_batch(self, out, y):
        self.acc = self.acc + torch.nn.functional.l1_loss(out, y)

    def backward(self):
        self.acc.backward()

    def score(self):
        return self.acc.item()
"""

ENGINE = """
import os
import torch

from proj.objectives import PartCriterion

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))


class Engine(object):
    def __init__(self, crit=PartCriterion()):
        self.crit = crit

    def _batch(self, x, y, model):
        crit = self.crit
        crit.reset()
        for t in range(x.size(1)):
            crit.eval_batch(model(x[:, t]), y)
        model.zero_grad()
        crit.backward()
        self.opt.step()
        return crit.score()

    def _epochs(self, model):
        running = 0
        for _ in range(ITERS):
            x, y = torch.randn(4, 3, 2), torch.randn(4, 1)
            step_loss = self._batch(x, y, model)
            running += step_loss
        return running

    def fit(self, model):
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        return self._epochs(model)
"""


def _write(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _findings(path):
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, "-m", "autodetach", "--no-cache", "--select", "AD102", "--unsafe-fixes",
                          "--output-format", "json", "--exit-zero", str(path)],
                         capture_output=True, text=True, env=env, cwd=str(path))
    data = json.loads(out.stdout)
    return data if isinstance(data, list) else data.get("findings", [])


def _project(tmp_path, crit):
    files = {"proj/__init__.py": "", "proj/engine/__init__.py": "from .engine import Engine  # noqa: F401\n",
             "proj/engine/engine.py": ENGINE, "run.py": "from proj.engine import Engine\n"}
    if crit is not None:
        files["proj/objectives/__init__.py"] = "from .parts import PartCriterion  # noqa: F401\n"
        files["proj/objectives/parts.py"] = crit
    else:
        files["proj/objectives/__init__.py"] = "from elsewhere import PartCriterion  # noqa: F401\n"
    _write(tmp_path, files)
    return tmp_path


def test_number_from_sibling_package_method(tmp_path):
    # the criterion's class is read in a sibling package: `score()` returns `.item()`, no graph
    assert _findings(_project(tmp_path, CRIT)) == []


def test_unread_method_result_is_inferred(tmp_path):
    # no class of the project defines `score`: that it returns a graph is an inference
    found = _findings(_project(tmp_path, None))
    assert [f["fix"] for f in found] == ["unsafe"]
    assert "inferred" in found[0]["message"] and "crit.score" in found[0]["message"]


LOOP = """
import os
import sys

import torch

sys.path.insert(0, "vendor")
{imp}

ITERS = int(os.environ.get("AUTODETACH_ITERS", "4"))
net = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
{bind}
for it in range(ITERS):
    opt.zero_grad()
    cost = torch.nn.functional.mse_loss(net(torch.randn(8, 3)), torch.randn(8, 1))
    cost.backward()
    opt.step()
    {meter}.add(cost)
print({meter})
"""


def _loop(tmp_path, imp, bind, meter="avg"):
    _write(tmp_path, {"app/train.py": LOOP.format(imp=imp, bind=bind, meter=meter)})
    return _findings(tmp_path)


def test_lowercase_factory_out_of_sight_is_inferred(tmp_path):
    found = _loop(tmp_path, "import counters", "avg = counters.averager()")
    assert [f["fix"] for f in found] == ["unsafe"]
    assert "counters.averager" in found[0]["message"] and "inferred" in found[0]["message"]


def test_unbound_name_is_inferred(tmp_path):
    # `tracker` comes from a star import out of sight: no container we know
    found = _loop(tmp_path, "from counters import *  # noqa", "", meter="tracker")
    assert [f["fix"] for f in found] == ["unsafe"]
    assert "bound nowhere" in found[0]["message"]


def test_set_stays_safe(tmp_path):
    found = _loop(tmp_path, "", "avg = set()")
    assert [f["fix"] for f in found] == ["safe"]
