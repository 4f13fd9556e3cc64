"""AD101 recall on unseen shapes (session 38, recall87).

A project module that gathers the usual imports (`utils/_libs_.py`: `import
torch`, `import torch.nn as nn`) hands torch on to the files that take it from
there (`from utils._libs_ import math, torch, nn`). Such a file names no torch
module of its own, so before this change no rule read it as torch code, and an
evaluation method that folds every batch's output into `torch.cat` with
gradients on went unseen (MLCNN's `ModelRunner.evaluate`). The name `torch`
among the imported names is what shows the relay; `nn`, `F` and `optim` next to
it are read as torch's, as a star import of such a module already is. Not
from torch's own modules, nor from another autodiff library's (`from
mxnet.gluon import nn`), nor a module that hands on `nn` without `torch`."""
import textwrap

import libcst as cst
import pytest

from autodetach import check_code
from autodetach.imports import ImportTable


def _table(src):
    return ImportTable.from_module(cst.parse_module(textwrap.dedent(src)))


def _q(table, text):
    return table.qualify(cst.parse_expression(text))


def test_relayed_torch_names():
    t = _table("from utils._libs_ import math, time, torch, nn, np, F as fn, optim\n")
    assert t.mentions_torch()
    assert _q(t, "torch.cat") == "torch.cat"
    assert _q(t, "nn.Linear") == "torch.nn.Linear"
    assert _q(t, "fn.softmax") == "torch.nn.functional.softmax"
    assert _q(t, "optim.SGD") == "torch.optim.SGD"
    assert _q(t, "math.sqrt") == "utils._libs_.math.sqrt"  # only the usual torch names
    assert _q(t, "np.zeros") == "utils._libs_.np.zeros"


def test_relative_relay():
    t = _table("from ._libs_ import torch, nn\n")
    assert t.mentions_torch()
    assert _q(t, "nn.Module") == "torch.nn.Module"
    assert _q(t, "torch.no_grad") == "torch.no_grad"


@pytest.mark.parametrize("src", [
    "from mxnet.gluon import nn\n",              # another library's nn
    "from common import nn, F\n",                # no torch among the names: nothing shows the relay
    "from paddle import nn, torch\n",            # another autodiff library
    "from torchvision import models, torch\n",   # torch's own family: read as it is
])
def test_no_relay(src):
    t = _table(src)
    assert _q(t, "nn.Linear") != "torch.nn.Linear"


RUNNER = """
from utils._libs_ import math, torch, nn


class ModelRunner:
    def __init__(self, model, batches):
        self.model = model
        self.batches = batches
        self.optim = torch.optim.SGD(model.parameters(), lr=0.1)
        self.criterion = nn.MSELoss()

    def train(self):
        for x, y in self.batches:
            self.optim.zero_grad()
            loss = self.criterion(self.model(x), y)
            loss.backward()
            self.optim.step()

    def evaluate(self):
        self.model.eval()
        predict = None
        for x, y in self.batches:
            output = self.model(x)
            if predict is None:
                predict = output
            else:
                predict = torch.cat((predict, output))
        return math.sqrt(float(predict.pow(2).mean()))

    def run(self, epochs):
        for epoch in range(epochs):
            self.train()
            rmse = self.evaluate()
            print(epoch, rmse)
"""


def test_evaluate_cat_through_relayed_torch():
    found = [f for f in check_code(RUNNER) if f.code == "AD101"]
    assert found and all(f.fix != "safe" for f in found)
    assert any("runs with gradients on" in f.message for f in found)


def test_evaluate_cat_through_relayed_torch_no_grad():
    src = RUNNER.replace("    def evaluate(self):\n", "    @torch.no_grad()\n    def evaluate(self):\n")
    assert [f for f in check_code(src) if f.code == "AD101"] == []


def test_evaluate_helper_function_relayed_functional():
    # a free function in a notebook-style script; F taken from the same module as torch
    src = textwrap.dedent("""
        from setup_env import F, nn, torch


        def evaluate(net, loader):
            scores = torch.zeros(0, 3)
            for x, _ in loader:
                scores = torch.cat([scores, F.softmax(net(x), dim=1)])
            return scores.argmax(1).float().mean().item()


        net = nn.Linear(6, 3)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        data = [(torch.randn(4, 6), torch.randint(0, 3, (4,))) for _ in range(3)]
        for epoch in range(3):
            for x, y in data:
                opt.zero_grad()
                F.cross_entropy(net(x), y).backward()
                opt.step()
            print(evaluate(net, data))
    """)
    found = [f for f in check_code(src) if f.code == "AD101"]
    assert found and all(f.fix != "safe" for f in found)
    plain = src.replace("from setup_env import F, nn, torch", "import torch\nimport torch.nn as nn\n"
                        "import torch.nn.functional as F")
    # the same finding as with torch imported directly
    assert [(f.line, f.fix) for f in found] == \
        [(f.line - 2, f.fix) for f in check_code(plain) if f.code == "AD101"]


# ---- analysis.outliving_passes: what an evaluation pass run with gradients on keeps after it returns

VALIDATE = textwrap.dedent("""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    best = float("inf")


    def validate(net, batches):
        global best
        errors = []
        for x, y in batches:
            errors.append(F.l1_loss(net(x), y))
        mean = torch.stack(errors).mean()
        if mean < best:
            best = mean
        return mean.item()


    net = nn.Linear(4, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    data = [(torch.randn(3, 4), torch.randn(3, 1)) for _ in range(2)]
    for epoch in range(3):
        for x, y in data:
            opt.zero_grad()
            F.l1_loss(net(x), y).backward()
            opt.step()
        print(validate(net, data))
""")


def _kept_after_call(src):
    return [f for f in check_code(src) if f.code == "AD101" and "after the call" in f.message]


def test_global_best_of_unguarded_pass():
    found = _kept_after_call(VALIDATE)
    assert len(found) == 1 and found[0].fix == "unsafe"
    assert "a module global `validate` declares" in found[0].message
    assert "inferred: `validate` runs with gradients on" in found[0].message


def test_global_best_as_number_or_under_no_grad():
    assert _kept_after_call(VALIDATE.replace("best = mean\n", "best = mean.item()\n")) == []
    guarded = VALIDATE.replace("    print(validate(net, data))", "    with torch.no_grad():\n"
                                                                 "        print(validate(net, data))")
    assert _kept_after_call(guarded) == []


def test_global_of_one_batch_only():
    # a value from one batch (the last), not from every iteration of the pass: not this shape
    src = VALIDATE.replace("mean = torch.stack(errors).mean()", "mean = F.l1_loss(net(x), y)")
    assert _kept_after_call(src) == []


def test_global_read_into_a_backwarded_loss():
    # the kept value feeds a loss a backward of the file walks (`penalty = best * 0.1`): wanted, no finding
    src = VALIDATE.replace("F.l1_loss(net(x), y).backward()",
                           "penalty = 0.1 * best if torch.is_tensor(best) else 0.0\n"
                           "            (F.l1_loss(net(x), y) + penalty).backward()")
    assert _kept_after_call(src) == []


def test_best_on_trainer_method():
    src = textwrap.dedent("""
        import torch
        import torch.nn as nn


        class Trainer:
            def __init__(self, model, batches):
                self.model = model
                self.batches = batches
                self.opt = torch.optim.Adam(model.parameters())
                self.best_score = None

            def train_epoch(self):
                for x, y in self.batches:
                    self.opt.zero_grad()
                    ((self.model(x) - y) ** 2).mean().backward()
                    self.opt.step()

            def score(self):
                losses = [((self.model(x) - y) ** 2).mean() for x, y in self.batches]
                total = 0
                for item in losses:
                    total = total + item
                if self.best_score is None or total < self.best_score:
                    self.best_score = total
                return float(total)

            def fit(self, epochs):
                for _ in range(epochs):
                    self.train_epoch()
                    print(self.score())
    """)
    found = _kept_after_call(src)
    assert [f.fix for f in found] == ["unsafe"] and "an attribute of `self`" in found[0].message


def test_kept_value_handed_to_code_not_followed():
    # `self.context` is handed to the network by the training step: a backward may reach it (silent)
    src = textwrap.dedent("""
        import torch
        import torch.nn as nn


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.l = nn.Linear(4, 1)

            def forward(self, x, context=None):
                out = self.l(x)
                return out if context is None else out + context


        class Trainer:
            def __init__(self, model, batches):
                self.model = model
                self.batches = batches
                self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
                self.context = None

            def train_epoch(self):
                for x, y in self.batches:
                    self.opt.zero_grad()
                    ((self.model(x, self.context) - y) ** 2).mean().backward(retain_graph=True)
                    self.opt.step()

            def summarize(self):
                outs = []
                for x, _ in self.batches:
                    outs.append(self.model(x))
                self.context = torch.stack(outs).mean()
                return 0

            def fit(self, epochs):
                for _ in range(epochs):
                    self.train_epoch()
                    self.summarize()
    """)
    assert _kept_after_call(src) == []
    # the same value read only as a number by the rest of the file: reported
    numbers = src.replace("self.model(x, self.context)", "self.model(x)").replace(
        "self.summarize()", "self.summarize()\n            print(float(self.context))")
    assert [f.fix for f in _kept_after_call(numbers)] == ["unsafe"]
