"""Session 35, recall72: what a project function or method hands back after its own
backward is a loss with its graph (Summary.returns_loss), whatever it and the names
around it are called; a loop of another file that keeps it keeps the graph. Such a
file may hold no backward and no word of a loss (AD102's tokens admit it)."""
import ast
import textwrap

from autodetach.analysis.returned_losses import returned_losses
from autodetach.analysis.summaries import _backwarded_names
from autodetach.engine import Options, check_source, prefilter
from autodetach.registry import all_rules, by_code


def _returns(src):
    fn = ast.parse(textwrap.dedent(src)).body[0]
    return returned_losses(fn, _backwarded_names(fn))


def test_returns_loss_positions():
    assert _returns("""
        def step(net, opt, x):
            err = net(x).mean()
            err.backward()
            opt.step()
            return err
    """) == (-1,)
    assert _returns("""
        def step(self, x):
            gap = self.net(x).mean()
            self.scaler.scale(gap).backward()
            return gap, x.argmax(1)
    """) == (0,)


def test_returns_loss_not_a_number_or_other_value():
    # rebound to a number after the backward, another value, or one return that differs
    assert _returns("""
        def step(net, opt, x):
            err = net(x).mean()
            err.backward()
            err = err.item()
            return err
    """) == ()
    assert _returns("""
        def step(net, x):
            err = net(x).mean()
            err.backward()
            return net(x)
    """) == ()
    assert _returns("""
        def step(net, x, flag):
            err = net(x).mean()
            err.backward()
            if flag:
                return None
            return err
    """) == ()


def _project(tmp_path, files):
    for name, src in files.items():
        (tmp_path / name).write_text(textwrap.dedent(src))
    path = tmp_path / "train.py"
    text = path.read_text()
    rules = prefilter(text, all_rules())
    findings, _, _ = check_source(text, str(path), rules, Options())
    return [(f.code, f.line, f.fix) for f in findings if f.code.startswith("AD1")]


MODEL = """
import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 1)
        self.opt = torch.optim.SGD(self.parameters(), lr=0.1)

    def forward(self, x):
        return self.lin(x)

    def fit_batch(self, x, y):
        self.opt.zero_grad()
        err = ((self(x) - y) ** 2).mean()
        err.backward()
        self.opt.step()
        return err, x.sum()

    def score(self, x, y):
        with torch.no_grad():
            return ((self(x) - y) ** 2).mean()
"""

# a model handed in as a parameter, built by a factory of the file; no backward, no word of a loss
TRAIN = """
import torch
from model import Regressor


def build():
    model = Regressor()
    return model


def run(model, epochs):
    for e in range(epochs):
        hist = []
        for i in range(5):
            x = torch.randn(8, 3)
            out, _ = model.fit_batch(x, x.sum(1, keepdim=True))
            hist.append(KEPT)
        print(float(sum(hist)) / len(hist))


if __name__ == "__main__":
    run(build(), 3)
"""


def test_method_result_kept_by_parameter_model(tmp_path):
    found = _project(tmp_path, {"model.py": MODEL, "train.py": TRAIN.replace("KEPT", "out")})
    assert [(code, line) for code, line, _ in found] == [("AD102", 17)]
    assert found[0][2] == "unsafe"  # the model's class is inferred


def test_method_result_kept_as_number_or_scored_without_grad(tmp_path):
    assert _project(tmp_path, {"model.py": MODEL, "train.py": TRAIN.replace("KEPT", "out.item()")}) == []
    score = TRAIN.replace("out, _ = model.fit_batch", "out = model.score").replace("KEPT", "out")
    assert _project(tmp_path, {"model.py": MODEL, "train.py": score}) == []


HELPERS = """
import torch.nn.functional as F


def fit_batch(net, opt, x, y):
    opt.zero_grad()
    err = F.mse_loss(net(x), y)
    err.backward()
    opt.step()
    return err


def fit_batch_number(net, opt, x, y):
    opt.zero_grad()
    err = F.mse_loss(net(x), y)
    err.backward()
    opt.step()
    return err.item()
"""

SCRIPT = """
import torch
from helpers import STEP

net = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
curve = []
for i in range(5):
    x = torch.randn(8, 3)
    out = STEP(net, opt, x, x.sum(1, keepdim=True))
    curve.append(out)
print(curve[-1])
"""


def test_free_function_of_another_file_in_a_script(tmp_path):
    found = _project(tmp_path, {"helpers.py": HELPERS, "train.py": SCRIPT.replace("STEP", "fit_batch")})
    assert [(code, line) for code, line, _ in found] == [("AD102", 11)]
    assert _project(tmp_path, {"helpers.py": HELPERS, "train.py": SCRIPT.replace("STEP", "fit_batch_number")}) == []


def test_losses_of_a_helper_without_backward_summed_and_backwarded(tmp_path):
    # the helper only computes the loss; the script sums and backwards it (gradient accumulation)
    helpers = HELPERS.replace("err.backward()\n    opt.step()\n    return err\n", "return err\n", 1)
    script = SCRIPT.replace("STEP", "fit_batch").replace("print(curve[-1])", "sum(curve).backward()")
    assert _project(tmp_path, {"helpers.py": helpers, "train.py": script}) == []


def test_tokens_admit_a_file_without_backward():
    rule = by_code()["AD102"]
    assert rule in prefilter("hist = []\nhist.append(model.fit_batch(x))\n", [rule])
    assert rule in prefilter("total = 0\ntotal += model.fit_batch(x)\n", [rule])
