"""Fixes that the fixcheck cases of fixaudit8 (benchmarks/fixcheck_cases/) showed
to be wrong: each test is the smallest program of that shape."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules


def _found(src, code):
    findings, _, _ = check_source(textwrap.dedent(src), "case.py", all_rules(), Options())
    return [f for f in findings if f.code == code]


DICT_HISTORY = """
import torch
from torch import nn

m = nn.Linear(4, 2)
opt = torch.optim.SGD(m.parameters(), lr=0.1)

def compute(x):
    out = m(x)
    return {"a": out[:, 0].mean(), "b": out[:, 1].pow(2).mean()}

history = []
for i in range(3):
    losses = compute(torch.randn(8, 4))
    loss = losses["a"] + losses["b"]
    opt.zero_grad()
    loss.backward()
    opt.step()
    history.append(losses)
"""


def test_dict_from_helper_is_not_detached():
    # trainer_loss_dict_history: `history.append(losses.detach())` raised AttributeError on the dict
    ad102 = _found(DICT_HISTORY, "AD102")
    assert len(ad102) == 1
    assert ad102[0].fix == "none"
    assert "read as a dict" in ad102[0].message


def test_tensor_history_still_fixed():
    src = DICT_HISTORY.replace('losses["a"] + losses["b"]', "losses").replace(
        'return {"a": out[:, 0].mean(), "b": out[:, 1].pow(2).mean()}', "return out.pow(2).mean()")
    ad102 = _found(src, "AD102")
    assert len(ad102) == 1 and ad102[0].fix != "none"
