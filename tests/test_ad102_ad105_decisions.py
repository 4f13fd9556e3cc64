"""AD102's `.item()` versus `.detach()` and AD105's safe / unsafe / no fix
(issue 9), and the saved-weights table behind AD105 checked against torch."""
import os
import subprocess
import sys
import textwrap

import libcst as cst
import pytest

from autodetach.analysis.saved import _layer
from autodetach.analysis.uses import float_ok
from autodetach.context import FileContext
from autodetach.engine import Options, check_source
from autodetach.registry import by_code

from .corpus import CORPUS


def _findings(code, path):
    with open(os.path.join(CORPUS, code, path), encoding="utf-8") as fh:
        text = fh.read()
    found, _, _ = check_source(text, path, [by_code()[code]], Options())
    return [f for f in found if f.code == code]


@pytest.mark.parametrize("case,fix", [
    ("aux_optimizer_between.py", "safe"),
    ("two_models_one_optimizer.py", "safe"),
    ("wrapper_part_on_noise_step_between.py", "safe"),  # `model.gen`'s layer read from GAN.__init__
    ("factory_encoder_step_between.py", "unsafe"),
    ("flag_gan_stale_discriminator.py", "none"),
    ("flag_gan_shared_scores.py", "none"),
], ids=lambda v: f"AD105-{v}")
def test_ad105_fix_label(case, fix):
    found = _findings("AD105", case)
    assert [f.fix for f in found] == [fix]
    if fix == "none":
        assert "modified by an inplace operation" in found[0].message
        assert "opt_d.step()" in found[0].message


def test_ad105_unsafe_fix_needs_unsafe_fixes():
    path = os.path.join(CORPUS, "AD105", "factory_encoder_step_between.py")
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    _, new, _ = check_source(text, path, [by_code()["AD105"]], Options(fix=True))
    assert new is None


def _ctx(src):
    return FileContext(cst.parse_module(textwrap.dedent(src)), "case.py")


def _layer_of(src, graph_input):
    ctx = _ctx("import torch\nfrom torch import nn\nm = " + src + "\n")
    call = ctx.module.body[-1].body[0].value
    return _layer(ctx.analysis, call, graph_input, 0)


LAYERS = [
    # constructor, input requires grad, saves its weights
    ("nn.Linear(4, 3)", False, False),
    ("nn.Linear(4, 3)", True, True),
    ("nn.Embedding(10, 4)", False, False),
    ("nn.Conv1d(2, 3, 3)", False, True),
    ("nn.LayerNorm(4)", False, True),
    ("nn.LayerNorm(4, elementwise_affine=False)", True, False),
    ("nn.BatchNorm1d(4)", False, True),
    ("nn.Sequential(nn.Linear(4, 3), nn.ReLU())", False, False),
    ("nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Dropout(0.0))", False, False),
    ("nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 4))", False, True),
    ("nn.Sequential(nn.Linear(4, 3), nn.ReLU())", True, True),
]


@pytest.mark.parametrize("src,graph_input,saves", LAYERS, ids=[f"AD105-{i}" for i in range(len(LAYERS))])
def test_ad105_saved_weights_table(src, graph_input, saves):
    assert _layer_of(src, graph_input) is saves


def test_ad105_saved_weights_unknown():
    assert _layer_of("nn.Linear(4, 3)", None) is None  # input not known to be raw
    assert _layer_of("make_encoder()", True) is None


_TORCH_CHECK = r"""
import sys
import torch
from torch import nn
m = eval(sys.argv[1])
rg = sys.argv[2] == "True"
x = torch.randint(0, 10, (5,)) if isinstance(m, nn.Embedding) else \
    torch.randn(3, 2, 8) if isinstance(m, nn.Conv1d) else torch.randn(3, 4, requires_grad=rg)
out = m(x)
with torch.no_grad():
    for p in m.parameters():
        p.add_(0.1)  # what optimizer.step() does: an in-place update
try:
    out.sum().backward()
    print("runs")
except RuntimeError as e:
    print("inplace" if "modified by an inplace operation" in str(e) else "other")
"""


@pytest.mark.slow
@pytest.mark.parametrize("src,graph_input,saves", LAYERS, ids=[f"AD105-torch-{i}" for i in range(len(LAYERS))])
def test_ad105_saved_weights_table_matches_torch(src, graph_input, saves):
    """The table is what torch does: a backward after an in-place update of
    the layer's parameters fails exactly where the layer saved them."""
    env = dict(os.environ, OMP_NUM_THREADS="1", CUDA_VISIBLE_DEVICES="")
    proc = subprocess.run([sys.executable, "-c", _TORCH_CHECK, src, str(graph_input)], capture_output=True,
                          text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == ("inplace" if saves else "runs")


def _float_ok(src, key="losses", kind="container"):
    ctx = _ctx(src)
    stmt = next(n for n in ctx.module.body if isinstance(n, (cst.For, cst.FunctionDef)))
    return float_ok(ctx, key, kind, stmt.body.body[0])


FLOAT_USES = [
    ("print(sum(losses) / len(losses))", True),
    ('print("%.4f %.4f" % (min(losses), losses[-1]))', True),
    ('print(f"{losses[0]:.4f}")', True),
    ("import numpy as np\nprint(np.mean(losses))", True),
    ('logger.info("loss %s", losses[-1])', True),
    ("for i, v in enumerate(losses):\n    print(i, v * 2)", True),
    ("print(losses[-1].item())", False),
    ("print(torch.stack(losses).mean())", False),
    ("print(sum(losses).item())", False),
    ("history = losses\nhistory[-1].backward()", False),
    ("self_history = {'l': losses}", False),
    ("plot(losses)", False),
]


@pytest.mark.parametrize("after,ok", FLOAT_USES, ids=[f"AD102-{i}" for i in range(len(FLOAT_USES))])
def test_ad102_float_ok(after, ok):
    src = "import torch\nlosses = []\nfor i in range(3):\n    losses.append(i)\n" + after + "\n"
    assert _float_ok(src) is ok


def test_ad102_float_ok_not_for_parameters_or_attributes():
    src = "def fit(losses):\n    for i in range(3):\n        losses.append(i)\n"
    ctx = _ctx(src)
    loop = ctx.module.body[0].body.body[0]
    assert float_ok(ctx, "losses", "container", loop.body.body[0]) is False
    assert float_ok(ctx, "self.losses", "container", loop.body.body[0]) is False


_MIXED = """
import torch
from torch import nn
m0 = nn.Linear(6, 6)
m1 = nn.Linear(6, 8)
m2 = nn.Linear(8, 1)
opt = torch.optim.SGD(list(m0.parameters()) + list(m1.parameters()) + list(m2.parameters()), lr=0.1)
opt1 = torch.optim.SGD(m1.parameters(), lr=0.01)
for i in range(3):
    x = torch.randn(5, 6)
    h = m0(x)
    a = INPUT
    loss1 = a.pow(2).mean()
    loss2 = m2(a).pow(2).mean()
    opt.zero_grad()
    loss1.backward()
    opt1.step()
    loss2.backward()
    opt.step()
"""


@pytest.mark.parametrize("expr,fix", [
    ("m1(x) + h.sum()", "safe"),  # the graph tensor is added after m1: m1 saw raw data
    ("m1(x + h)", "none"),  # m1 is fed a graph tensor: it saved its weight
    ("m1(x.requires_grad_())", "unsafe"),
], ids=lambda v: f"AD105-{v}")
def test_ad105_where_the_graph_enters_the_stepped_module(expr, fix):
    found, _, _ = check_source(_MIXED.replace("INPUT", expr), "case.py", [by_code()["AD105"]], Options())
    assert [f.fix for f in found if f.code == "AD105"] == [fix]


def test_analysis_returns_kinds_rules_own_codes():
    """decide.py names kinds of problems; each kind belongs to exactly one AD1
    rule, so the analysis can change without knowing the rule codes."""
    from autodetach.analysis.decide import Problem

    owners = {}
    for code, rule in by_code().items():
        kind = getattr(rule, "kind", None)
        if isinstance(kind, Problem):
            assert kind not in owners, (kind, owners.get(kind), code)
            owners[kind] = code
    assert set(owners) == set(Problem)
    # a kind reaches its rule: AD107's corpus case is reported as AD107
    assert [f.code for f in _findings("AD107", "learned_temperature.py")] == ["AD107"]


def test_analysis_code_names_no_rule():
    """Rule codes appear in analysis/ only in comments and docstrings: the
    analysis answers with kinds, never with codes."""
    import ast
    import re

    import autodetach.analysis as analysis

    root = os.path.dirname(analysis.__file__)
    named = []
    for name in sorted(os.listdir(root)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(root, name), encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef)) and ast.get_docstring(n) is not None}
        for n in ast.walk(tree):
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs \
                    and re.search(r"AD1\d\d", n.value):
                named.append((name, n.lineno))
    assert named == []
