"""The legacy-migration rules AD203/AD205/AD207/AD208/AD209 against the
installed torch: their tables match torch's signatures, AD207's mapping is
torch's own, and a 0.3-style script fixed by them runs with the old numbers."""
import inspect
import itertools
import warnings

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import _reduction

from autodetach.engine import fix_code
from autodetach.rules import ad207_legacy_reduction as ad207


@pytest.mark.parametrize("name", sorted(ad207._F_LOSSES))
def test_functional_loss_table_matches_torch(name):
    params, n_inputs = ad207._F_LOSSES[name]
    actual = [p.name for p in inspect.signature(getattr(F, name)).parameters.values()
              if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert list(params) == actual[: len(params)]
    assert n_inputs <= len(params)


@pytest.mark.parametrize("name", sorted(ad207._NN_LOSSES))
def test_module_loss_table_matches_torch(name):
    params, n_inputs = ad207._NN_LOSSES[name]
    cls = getattr(nn, name)
    actual = [p.name for p in list(inspect.signature(cls.__init__).parameters.values())[1:]
              if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert list(params) == actual[: len(params)]
    fwd = [p for p in list(inspect.signature(cls.forward).parameters.values())[1:]]
    assert len(fwd) == n_inputs


@pytest.mark.parametrize("size_average,reduce", list(itertools.product([None, True, False], repeat=2)))
def test_reduction_mapping_is_torchs(size_average, reduce):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _reduction.legacy_get_string(size_average, reduce, emit_warning=False)
    assert ad207.legacy_reduction(size_average, reduce) == expected


@pytest.mark.parametrize("size_average,reduce", list(itertools.product(["None", "True", "False"], repeat=2)))
def test_ad207_fix_computes_the_same_loss(size_average, reduce):
    src = (
        "import torch.nn.functional as F\n"
        f"out = F.mse_loss(a, b, size_average={size_average}, reduce={reduce})\n"
    )
    new, findings = fix_code(src, select=["AD207"])
    assert [f.code for f in findings] == ["AD207"] and findings[0].fixed
    assert "size_average" not in new and "reduce=" not in new
    a, b = torch.randn(3, 2), torch.randn(3, 2)
    env_old, env_new = {"a": a, "b": b}, {"a": a, "b": b}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(src, env_old)
    exec(new, env_new)
    assert torch.equal(env_old["out"], env_new["out"])


LEGACY = '''\
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import init

torch.manual_seed(0)
net = nn.Linear(4, 3)
init.xavier_normal(net.weight)
criterion = nn.CrossEntropyLoss(size_average=False)
x = torch.randn(8, 4).to("cpu", async=True)
y = torch.randint(0, 3, (8,))
loss = criterion(F.tanh(net(x)), y)
loss.backward(retain_variables=True)
nn.utils.clip_grad_norm(net.parameters(), 1.0)
result = (loss.data[0], F.upsample_bilinear(x.view(1, 1, 8, 4), scale_factor=2).sum().data[0])
'''


def test_legacy_script_fixed_by_all_five_rules_runs():
    new, findings = fix_code(LEGACY, select=["AD203", "AD205", "AD207", "AD208", "AD209"])
    codes = sorted(f.code for f in findings)
    assert codes == ["AD203", "AD203", "AD205", "AD207", "AD208", "AD208", "AD208", "AD208", "AD209"]
    assert all(f.fixed for f in findings), [(f.code, f.message) for f in findings if not f.fixed]
    assert "async" not in new and "retain_variables" not in new and ".data[0]" not in new
    # The hand port of the same script.
    torch.manual_seed(0)
    net = nn.Linear(4, 3)
    nn.init.xavier_normal_(net.weight)
    x = torch.randn(8, 4)
    y = torch.randint(0, 3, (8,))
    loss = nn.CrossEntropyLoss(reduction="sum")(torch.tanh(net(x)), y)
    up = F.interpolate(x.view(1, 1, 8, 4), scale_factor=2, mode="bilinear", align_corners=True)
    env = {}
    exec(compile(new, "legacy.py", "exec"), env)
    assert env["result"] == (loss.item(), up.sum().item())
    assert isinstance(env["result"][0], float)
