"""Names taken from a project module by `from evaluation import *`, and helpers
of a file that call each other: metric helpers returning floats were unseen
code, and the running sums of their results were reported as keeping graphs."""
import textwrap

from autodetach.analysis.summaries import summarize
from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

METRICS = '''
import torch


def accuracy(out, y):
    return float(torch.sum((out > 0.5) == y.bool())) / out.numel()


def soft(out, y):
    return (out * y).sum()


def f1(out, y):
    a = accuracy(out, y)
    return 2 * a / (a + 1)
'''

TRAIN = '''
import torch
import torch.nn as nn
{imports}

net = nn.Linear(4, 3)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
total = 0.0
for step in range(10):
    out = torch.sigmoid(net(torch.randn(8, 4)))
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += {value}
'''


def _codes(tmp_path, value, imports="from metrics import *", metrics=METRICS, where="metrics.py"):
    (tmp_path / where).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / where).write_text(textwrap.dedent(metrics))
    text = TRAIN.format(imports=imports, value=value)
    path = tmp_path / "train.py"
    path.write_text(text)
    findings, _, _ = check_source(text, str(path), all_rules(), Options())
    return [f.code for f in findings if f.code.startswith("AD1")]


def test_star_imported_float_helper_keeps_no_graph(tmp_path):
    assert _codes(tmp_path, "accuracy(out, y=out.detach())") == []


def test_star_imported_graph_helper_is_reported(tmp_path):
    assert _codes(tmp_path, "soft(out, out.detach())") == ["AD101"]


def test_helper_built_from_float_helpers_keeps_no_graph(tmp_path):
    assert _codes(tmp_path, "f1(out, out.detach())") == []


def test_star_import_of_a_missing_file_stays_unseen(tmp_path):
    assert _codes(tmp_path, "accuracy(out, out.detach())", imports="from scores import *") == ["AD101"]


def test_relative_star_import(tmp_path):
    # in a folder of its own: the analysis looks through the folder holding the package
    # (here tmp_path), never through pytest's folder of every test's files
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    assert _codes(pkg, "accuracy(out, out.detach())", imports="from .metrics import *") == []


def test_local_definition_shadows_the_star_import(tmp_path):
    imports = "from metrics import *\n\n\ndef accuracy(out, y):\n    return (out * y).mean()\n"
    assert _codes(tmp_path, "accuracy(out, out.detach())", imports=imports) == ["AD101"]


def test_summary_follows_float_helpers_only():
    table = summarize(textwrap.dedent(METRICS) + '''

def loop_a(x):
    return loop_b(x)


def loop_b(x):
    return loop_a(x)


def mixed(out, y):
    return soft(out, y) + accuracy(out, y)
''')
    assert table["f1"].result == "cut" and table["f1"].no_graph
    assert table["soft"].result == "graph"
    assert table["mixed"].result == "unknown"
    assert table["loop_a"].result == "unknown" and table["loop_b"].result == "unknown"


def test_star_import_through_a_package_init(tmp_path):
    (tmp_path / "utils").mkdir()
    (tmp_path / "utils" / "__init__.py").write_text("from .metrics import *\n")
    assert _codes(tmp_path, "accuracy(out, out.detach())", imports="from utils import *",
                  where="utils/metrics.py") == []
    assert _codes(tmp_path, "soft(out, out.detach())", imports="from utils import *",
                  where="utils/metrics.py") == ["AD101"]
