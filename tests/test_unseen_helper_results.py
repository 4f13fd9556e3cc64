"""AD102 on a sum of what a helper of a module outside the run returns
(`epoch_loss += utils.to_scalar(loss)`): the helper may return a number, and
`.detach()` of a number raises, so the fix is unsafe and the message says so."""
import textwrap

from autodetach.engine import Options, check_source
from autodetach.registry import all_rules

SCRIPT = """
import torch
import torch.nn as nn
{imp}

net = nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
epoch_loss = 0
for x in torch.randn(4, 2, 3):
    loss = net(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    epoch_loss += {expr}
"""


def _ad102(imp, expr):
    text = textwrap.dedent(SCRIPT.format(imp=imp, expr=expr))
    findings, _, _ = check_source(text, "train_lm.py", all_rules(), Options())
    return [f for f in findings if f.code == "AD102"]


def test_a_helper_not_in_the_run_makes_the_fix_unsafe():
    found = _ad102("import model_word_ada.utils as utils", "utils.to_scalar(loss)")
    assert [f.fix for f in found] == ["unsafe"]
    assert "comes through code that was not followed" in found[0].message


def test_the_loss_itself_keeps_a_safe_fix():
    found = _ad102("import model_word_ada.utils as utils", "loss")
    assert [f.fix for f in found] == ["safe"]
    assert "not followed" not in found[0].message
