"""`z, ld = flow.backward(z)`: a `.backward(...)` whose result is assigned is
a module's own method (a normalizing flow's inverse pass), not autograd's
`Tensor.backward()`, which returns None. Neither the walk of a file nor the
summary of a project file takes it for a backward; `loss.backward()` as a
statement still is one."""
import textwrap

from autodetach.analysis.summaries import summarize
from autodetach.engine import check_code

FLOW = """
import torch
import torch.nn as nn

class Flow(nn.Module):
    def __init__(self, flows):
        super().__init__()
        self.flows = nn.ModuleList(flows)

    def backward(self, z):
        xs = [z]
        for flow in self.flows[::-1]:
            z, ld = flow.backward(z)
            xs.append(z)
        return xs

def train(model, data, opt):
    for x in data:
        xs = model.backward(x)
        loss = (xs[-1] - x).pow(2).mean()
        opt.zero_grad()
        {backward}
        opt.step()
        {store}
"""


def codes(src):
    return sorted((f.code, f.line) for f in check_code(textwrap.dedent(src), select=["AD1"]))


def test_an_inverse_pass_named_backward_keeps_no_list_and_frees_nothing():
    assert codes(FLOW.format(backward="loss.backward()", store="pass")) == []


def test_a_statement_backward_is_still_one():
    # the same loop keeping the loss with its graph: AD102 on the training loop's list
    src = FLOW.replace("def train(model, data, opt):\n", "def train(model, data, opt):\n    hist = []\n")
    src = textwrap.dedent(src.format(backward="loss.backward()", store="hist.append(loss)"))
    line = src[:src.index("hist.append")].count("\n") + 1
    assert codes(src) == [("AD102", line)]


def test_summary_of_an_inverse_pass_has_no_events():
    s = summarize(textwrap.dedent(FLOW.format(backward="loss.backward()", store="pass")))
    assert not s["Flow.backward"].events and not s["Flow.backward"].backward_args
    assert s["train"].events


def test_summary_of_an_assigned_autograd_call_elsewhere_is_unchanged():
    s = summarize("def step(loss, opt):\n    loss.backward()\n    opt.step()\n")
    assert s["step"].events and s["step"].backward_args
