"""Values the analysis must not take for graphs (issue 8): the indices of a
(values, indices) call and comparisons in another file's helper, what a
parameter called only with no arguments builds, and a file's own helpers
called through `sys.modules[__name__]`. Each next to the nearest shape that
must still be reported."""
import textwrap

from autodetach.analysis.summaries import summarize
from autodetach.engine import Options, check_source
from autodetach.registry import select_rules

HELPERS = """
import torch


def top1(output, target):
    _, pred = output.topk(1, 1, True, True)
    return pred.t().eq(target.view(1, -1)).float().sum()


def by_max(output, target):
    _, idx = torch.max(output, 1)
    return idx.eq(target).float().mean()


def top_values(output, target):
    vals, _ = output.topk(1, 1)
    return vals.sum() - target.float().sum()


def whole_max(output, target):
    best = output.max()
    return best.ne(target).float()


def pair(output, target):
    a, b = output.detach(), output
    return b
"""


def test_summary_reads_each_element_of_an_unpacked_pair():
    table = summarize(textwrap.dedent(HELPERS))
    assert table["top1"].result == "cut"
    assert table["by_max"].result == "cut"
    assert table["top_values"].result == "graph"  # the values of topk keep the graph
    assert table["whole_max"].result == "cut"  # `.ne` compares
    assert table["pair"].result == "graph"  # `b` is the element paired with it, not the detached one


METERS = """
class Meter:
    def __init__(self):
        self.sum = 0

    def update(self, val, n=1):
        self.sum += val * n
"""

TRAIN = """
import torch
import torch.nn as nn
import torch.nn.functional as F
from meters import Meter
from helpers import {helper}

net = nn.Linear(4, 3)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
meter = Meter()
for step in range(3):
    x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
    out = net(x)
    loss = F.cross_entropy(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    meter.update({helper}(out, y), 8)
"""


def _findings(tmp_path, files: dict, name="train.py", select=("AD1",)):
    for path, text in files.items():
        (tmp_path / path).write_text(textwrap.dedent(text))
    found, _, _ = check_source((tmp_path / name).read_text(), str(tmp_path / name),
                               select_rules(select=list(select)), Options())
    return [(f.code, f.line) for f in found]


def test_meter_of_an_index_accuracy_is_not_reported(tmp_path):
    for helper in ("top1", "by_max"):
        files = {"helpers.py": HELPERS, "meters.py": METERS, "train.py": TRAIN.format(helper=helper)}
        assert _findings(tmp_path, files) == [], helper


def test_meter_of_topk_values_is_still_reported(tmp_path):
    files = {"helpers.py": HELPERS, "meters.py": METERS, "train.py": TRAIN.format(helper="top_values")}
    assert ("AD102", 18) in _findings(tmp_path, files)


FACTORY = """
import torch
import torch.nn.functional as F


def train(net, {maker}, batches):
    {built}
    for x, y in batches:
        loss = F.mse_loss(net(x, params), y)
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= 0.1 * p.grad
                p.grad.zero_()
"""


def test_parameter_called_with_no_arguments_builds_leaves(tmp_path):
    files = {"train.py": FACTORY.format(maker="get_params", built="params = get_params()")}
    assert _findings(tmp_path, files) == []


def test_parameter_called_on_a_tensor_before_the_loop_is_still_a_network(tmp_path):
    files = {"train.py": FACTORY.format(maker="encoder", built="params = encoder(torch.randn(4, 4))")}
    assert [code for code, _ in _findings(tmp_path, files)] == ["AD107"]


SELF_ALIAS = """
import sys

import torch
import torch.nn as nn

{name} = sys.modules[__name__]


class Meter:
    def __init__(self):
        self.total = 0.0

    def add(self, v):
        self.total = self.total + {stored}


def step(net, opt, x):
    opt.zero_grad()
    loss = net(x).pow(2).mean()
    loss.backward()
    opt.step()
    return loss


def train(net, opt, batches):
    meter = lib.Meter()
    for x in batches:
        meter.add(step(net, opt, x))
    return meter.total
"""


def test_own_class_through_the_module_self_alias(tmp_path):
    assert _findings(tmp_path, {"train.py": SELF_ALIAS.format(name="lib", stored="float(v)")}) == []
    # the same class keeping the tensor is found through the alias, with its line
    found = _findings(tmp_path, {"train.py": SELF_ALIAS.format(name="lib", stored="v")})
    assert found == [("AD102", 29)]


def test_only_sys_modules_of_the_own_name_is_a_self_alias():
    import libcst as cst

    from autodetach.imports import ImportTable
    from autodetach.analysis.self_module import local_key, self_aliases

    def aliases(text):
        module = cst.parse_module(textwrap.dedent(text))
        return self_aliases(module, ImportTable.from_module(module))

    assert aliases("import sys\nlib = sys.modules[__name__]\n") == {"lib"}
    assert aliases("import sys\nlib = sys.modules['torch']\n") == set()
    assert aliases("import sys\nlib = sys.modules[__name__]\nlib = object()\n") == set()  # bound twice
    assert aliases("import sys, lib\nlib = sys.modules[__name__]\n") == set()  # also an import
    assert local_key("lib.Meter", frozenset({"lib"})) == "Meter"
    assert local_key("lib.a.Meter", frozenset({"lib"})) == "lib.a.Meter"


NET = """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        logits = self.fc(x)
        _, pred = logits.topk(1, 1)
        return logits, pred, x.shape[0], [v.item() for v in x.sum(1)]
"""

KEEPER = """
import torch
import torch.nn.functional as F
from models import Net


class Trainer:
    def __init__(self):
        self.net = Net()
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)
        self.preds, self.count, self.sums, self.kept = [], 0, [], []

    def fit(self, batches):
        for x, y in batches:
            logits, pred, n, sums = self.net(x)
            loss = F.cross_entropy(logits, y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            self.preds.append(pred)
            self.count += n
            self.sums.extend(sums)
            self.kept.append({kept})
"""


def test_elements_of_a_forward_tuple_that_hold_no_graph(tmp_path):
    # the indices, the count and the list of floats: only the logits carry the graph
    files = {"models.py": NET, "train.py": KEEPER.format(kept="logits")}
    assert _findings(tmp_path, files) == [("AD101", 23)]
    files = {"models.py": NET, "train.py": KEEPER.format(kept="loss.item()")}
    assert _findings(tmp_path, files) == []
    # the same class in the same file, called through a plain name
    own = NET + KEEPER.split("from models import Net\n")[1].format(kept="logits")
    imports = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
    own = own.replace("import torch.nn as nn\n", imports)
    assert [code for code, _ in _findings(tmp_path, {"train.py": own})] == ["AD101"]
